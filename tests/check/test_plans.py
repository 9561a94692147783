"""The plans of records.py (what may stand in each operand of an opcode, checked without parsing
the operands) let through exactly what the full operand rules let through, and report nothing
they would not: the diagnostics with plans equal those without, on every kernel file and on
variants whose operands are replaced by every kind of operand."""
from __future__ import annotations

import glob
import os
import re

import pytest

from ptxld.checker import _Pass, check_source, records

ROOT = os.path.join(os.path.dirname(__file__), "..", "kernels", "ptx")
FILES = sorted(glob.glob(os.path.join(ROOT, "*", "*.ptx")))

# what an operand may be: registers of several types, numbers, a variable's address, a
# function, a label, special registers, names nobody declared
_OPERANDS = ["%r1", "%rd1", "%f1", "%p1", "%fd1", "%rs1", "0", "-1", "0x10", "0f3F800000", "0d3FF0000000000000",
             "1.5", "12abc", "WARP_SZ", "%tid.x", "%tid.q", "%laneid", "%nosuch", "nosuch", "[%rd1]",
             "[%rd1+8]", "!%p1", "{%r1, %r2}"]
_LAST_OPERAND = re.compile(r"(\n\t(?:@!?%p\d+ )?[a-z][\w.:]*[ \t]+[^;\n{}]*,\s*)([^,;\n{}]+)(;)")


def _variants(text: str) -> list[str]:
    names = re.findall(r"^\.(?:shared|global|const)\s.*?([A-Za-z_$][\w$]*)(?:\[\d*\])*\s*(?:=[^;]*)?;", text, re.M)
    labels = re.findall(r"^(\$?[A-Za-z_][\w$]*):", text, re.M)
    funcs = re.findall(r"\.func\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)", text)
    extra = names[:1] + labels[:1] + funcs[:1]
    out = []
    for k, token in enumerate(_OPERANDS + extra):
        count = [0]

        def swap(m, token=token, k=k):
            count[0] += 1
            return m.group(1) + token + m.group(3) if (count[0] + k) % 5 == 0 else m.group(0)
        out.append(_LAST_OPERAND.sub(swap, text))
    return out


def _diags(text: str) -> list:
    return [(d.code, d.line, d.column, d.message) for d in check_source(text, filename="m.ptx")]


# a fixed sample by default (every third file, all targets); every file with `-m slow`
SAMPLE = FILES[::3]


@pytest.mark.parametrize("path", SAMPLE, ids=lambda p: os.path.relpath(p, ROOT))
def test_plans_report_what_the_operand_rules_report(path, monkeypatch):
    _compare(path, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("path", [p for p in FILES if p not in SAMPLE], ids=lambda p: os.path.relpath(p, ROOT))
def test_plans_report_what_the_operand_rules_report_on_every_file(path, monkeypatch):
    _compare(path, monkeypatch)


def _compare(path, monkeypatch):
    text = open(path, encoding="utf-8").read()
    for variant in [text] + _variants(text):
        planned = _diags(variant)
        with monkeypatch.context() as m:
            m.setattr(records, "_make_plan", lambda d, forms: records._NO_PLAN)
            m.setattr(records, "_PLANS", {})
            init = _Pass.__init__

            def every_name(self, c):
                init(self, c)
                self.names_checked_leave = False
            m.setattr(_Pass, "__init__", every_name)
            assert _diags(variant) == planned
