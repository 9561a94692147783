"""Header and statement spellings ptxas 13.0 rejects, with the line ptxas names (measured with
ptxas 13.0.88; the ptxas-marked test re-measures it). ptxld's first error must be on that line."""
from __future__ import annotations

import re

import pytest

from ptxas_util import PTXAS, assemble
from ptxld.checker import check_source

K = ".visible .entry k()\n{\n    ret;\n}\n"
B = (".visible .entry k(.param .u64 p)\n{\n    .reg .b64 %a;\n    .reg .u32 %r;\n    .reg .pred %p;\n"
     "    ld.param.u64 %a, [p];\n    {body}\n    ret;\n}}\n").replace("{\n    .reg", "{{\n    .reg", 1)
H = ".version 9.0\n.target sm_90\n.address_size 64\n"

# (name, module, ptxas's error line or 0 for "accepted", or None for an error without a line)
CASES = [
    ("leading-dot-instruction", H + B.format(body=".ld.global.u32 %r, [%a];"), 10, "PTX0113"),
    ("leading-dot-after-label", H + B.format(body="L1: .ld.global.u32 %r, [%a];"), 10, "PTX0113"),
    ("leading-dot-second-on-line", H + B.format(body="mov.u32 %r, 1; .mov.u32 %r, 2;"), 10, "PTX0113"),
    ("unknown-top-directive", H + ".foo 1\n" + K, 4, "PTX0113"),
    ("pragma-is-a-directive", H + B.format(body='.pragma "nounroll";'), 0, None),
    ("target-no-comma", ".version 9.0\n.target sm_90 sm_80\n.address_size 64\n" + K, 2, "PTX0114"),
    ("target-empty-entry", ".version 9.0\n.target sm_90,,texmode_unified\n.address_size 64\n" + K, 2, "PTX0114"),
    ("target-option-first", ".version 9.0\n.target texmode_unified, sm_90\n.address_size 64\n" + K, 2, "PTX0114"),
    ("target-two-architectures", ".version 9.0\n.target sm_90, sm_80\n.address_size 64\n" + K, 0, None),
    ("target-map-f64", ".version 9.0\n.target sm_90, map_f64_to_f32\n.address_size 64\n" + K, 2, "PTX0115"),
    ("target-debug-no-dwarf", ".version 9.0\n.target sm_90, debug\n.address_size 64\n" + K, None, "PTX0115"),
    ("target-debug-any-section", ".version 9.0\n.target sm_90, debug\n.address_size 64\n" + K
     + ".section .debug_abbrev\n{\n.b8 0\n}\n", 0, None),
    ("target-repeated-in-header", ".version 9.0\n.target sm_90\n.target sm_90\n.address_size 64\n" + K, 0, None),
    ("target-after-address-size", H + ".target sm_90\n" + K, 4, "PTX0104"),
    ("target-after-variable", H + ".global .b32 g;\n.target sm_90\n" + K, 5, "PTX0104"),
    ("target-before-version", ".target sm_90\n.version 9.0\n.address_size 64\n" + K, 2, "PTX0101"),
    ("target-before-version-blank", ".target sm_90\n\n\n.version 9.0\n.address_size 64\n" + K, 4, "PTX0101"),
    ("no-version", ".target sm_90\n.address_size 64\n" + K, 2, "PTX0101"),
    ("address-size-first", ".address_size 64\n.version 9.0\n.target sm_90\n" + K, 1, "PTX0101"),
    ("sm88-at-8.8", ".version 8.8\n.target sm_88\n.address_size 64\n" + K, 0, None),
    ("sm88-at-7.3", ".version 7.3\n.target sm_88\n.address_size 64\n" + K, 0, None),
    ("sm88-at-7.2", ".version 7.2\n.target sm_88\n.address_size 64\n" + K, 2, "PTX0106"),
]


@pytest.mark.parametrize("name,text,line,code", CASES, ids=[c[0] for c in CASES])
def test_first_error_where_ptxas_reports(name, text, line, code):
    errors = [d for d in check_source(text) if d.severity == "error"]
    if line == 0:
        assert not errors, [(d.line, d.code, d.message) for d in errors]
        return
    assert errors
    assert errors[0].code == code, [(d.line, d.code) for d in errors]
    if line is not None:
        assert errors[0].line == line


@pytest.mark.ptxas
@pytest.mark.skipif(not PTXAS, reason="ptxas not installed")
@pytest.mark.parametrize("name,text,line,code", CASES, ids=[c[0] for c in CASES])
def test_cases_against_ptxas(name, text, line, code):
    rc, out = assemble(text)
    if line == 0:
        assert rc == 0, out
        return
    assert rc != 0, out
    lines = [int(x) for x in re.findall(r"line (\d+); (?:error|fatal)", out)]
    assert (min(lines) if lines else None) == line, out
