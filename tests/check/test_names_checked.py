"""An instruction whose operand names a record rule looked up (NAMES_CHECKED) leaves PTX0301's
names pass: the diagnostics are exactly those of the pass over every instruction."""
from __future__ import annotations

import glob
import os
import re

import pytest

from ptxld.checker import _Pass, check_source
from ptxld.checker.registry import NAMES_CHECKED

ROOT = os.path.join(os.path.dirname(__file__), "..", "kernels", "ptx")
FILES = sorted(glob.glob(os.path.join(ROOT, "*", "*.ptx")))


def _planted(text: str) -> str:
    """Names PTX0301 must report, or must not, among instructions the record plans read."""
    # a register used before its declaration, then declared (after the body's first
    # instruction) and used again
    text = text.replace("\n\tret;", "\n\tadd.s32 %r1, %late3, 1;\n\t.reg .b32 %late<4>;"
                        "\n\tadd.s32 %late1, %late2, %late3;\n\tret;", 1)
    # loads and stores whose destination or address register is declared after its use
    text = text.replace("\n\tret;", "\n\tld.global.u32 %ldl1, [%rdl1];\n\tst.global.u32 [%rdl1], %r1;"
                        "\n\tld.global.u32 %r1, [%rdl1+8];\n\t.reg .b32 %ldl<2>;\n\t.reg .b64 %rdl<2>;"
                        "\n\tld.global.u32 %ldl1, [%rdl1];\n\tst.global.u32 [%rdl1+4], %ldl1;\n\tret;", 1)
    # a label nobody defines, a `%` name that is neither declared nor a special register, a
    # special register with and without a field
    text = text.replace("\n\tret;", "\n\t@%p1 bra $L__nowhere;\n\tmov.u32 %r1, %nosuchsreg;"
                        "\n\tmov.u32 %r1, %tid.y;\n\tmov.u32 %r1, %laneid;\n\tret;", 1)
    # an undeclared register, a number outside the fast grammar, a near-miss of one
    text = text.replace("add.s32 \t%r", "add.s32 \t%nosuch, %r", 1)
    text = re.sub(r"(mov\.u32 \t%r\d+, )(\d+);", r"\g<1>12abc;", text, count=1)
    return re.sub(r"(mov\.b32 \t%r\d+, )(\d+);", r"\g<1>0x;", text, count=1)


def _diags(text: str) -> list:
    return [(d.code, d.line, d.column, d.message) for d in check_source(text, filename="m.ptx")]


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, ROOT))
def test_leaving_names_checked_instructions_out_changes_nothing(path, monkeypatch):
    text = open(path, encoding="utf-8").read()
    left_out = [0]
    original = _Pass.instructions

    def counting(self, batch):
        before = sum(len(g) for g in self.together.values())
        original(self, batch)
        left_out[0] += len(batch) - (sum(len(g) for g in self.together.values()) - before)
    for variant in (text, _planted(text)):
        monkeypatch.setattr(_Pass, "instructions", counting)
        fast = _diags(variant)
        monkeypatch.setattr(_Pass, "instructions", original)
        monkeypatch.setattr(_Pass, "__init__", _every_instruction_named(_Pass.__init__))
        assert _diags(variant) == fast
        monkeypatch.undo()
    assert left_out[0] > 0 or "ret;" not in text


def _every_instruction_named(init):
    def __init__(self, c):
        init(self, c)
        self.names_checked_leave = False  # the names pass reads every instruction
    return __init__


def test_a_function_named_before_its_declaration_is_reported():
    # the plan of `mov` takes a function name: only a label leaves the names pass unchecked
    src = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.reg .b64 %rd<3>;\n"
           "mov.u64 %rd1, laterf;\nmov.u64 %rd2, early;\nret;\n}\n.visible .func laterf()\n{\nret;\n}\n")
    src = src.replace(".visible .entry k()", ".visible .func early()\n{\nret;\n}\n.visible .entry k()")
    assert [(code, m) for code, _, _, m in _diags(src)] == [
        ("PTX0301", "`laterf` is used before its declaration")]


def test_the_planted_names_are_reported():
    text = _planted(open(os.path.join(ROOT, "sm_90", "programs_basic.ptx"), encoding="utf-8").read())
    found = _diags(text)
    messages = " ".join(m for code, _, _, m in found if code == "PTX0301")
    assert "%nosuch" in messages and "%late3" in messages
    assert "%ldl1" in messages and "%rdl1" in messages
    assert "$L__nowhere" in messages and "%nosuchsreg" in messages
    assert "%tid" not in messages and "%laneid" not in messages
    assert any(code == "PTX0001" for code, *_ in found)  # `12abc`: a syntax error


def test_names_checked_is_returned_only_where_every_name_was_read():
    from ptxld.checker import records
    from ptxld.checker.context import Checker
    from ptxld.ptx.parser import parse
    src = (".version 8.0\n.target sm_90\n.address_size 64\n.entry k()\n{\n.reg .b32 %r<4>;\n"
           "add.s32 %r1, %r2, %r3;\nadd.s32 %r1, %r2, 7;\nadd.s32 %r1, %r2, 1.5;\n"
           "add.s32 %r1, %r2, %x;\n.reg .b32 %x;\nret;\n}\n")
    module = parse(src, eager=False)
    c = Checker(module, False, None)
    p = _Pass(c)
    verdicts = []
    real = records.check_instruction
    try:
        records_check = [f for f in c.checks["instruction"] if f is real]
        assert records_check
        for ins in module.instructions[:4]:
            scope = ins.scope
            c.first.setdefault(scope, module.instructions[0].start)
            verdicts.append(real(c, ins))
    finally:
        del p
    assert verdicts[:2] == [NAMES_CHECKED, NAMES_CHECKED]
    assert verdicts[2] is not NAMES_CHECKED and verdicts[3] is not NAMES_CHECKED
