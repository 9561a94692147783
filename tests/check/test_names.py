"""Undeclared names (PTX0301) are found where ptxas finds them ("Unknown symbol"), whichever way
an instruction's names are checked: together with its scope's other instructions, on its own
(operands outside the fast grammar: calls, `p|q`), or as part of a load."""
from __future__ import annotations

import os
import re

import pytest

from ptxas_util import PTXAS, assemble
from ptxld.checker import check_source

DATA = os.path.join(os.path.dirname(__file__), "data")
MODULE = open(os.path.join(DATA, "undeclared_names.ptx"), encoding="utf-8").read()
_UNKNOWN = re.compile(r"line (\d+); error\s*: Unknown symbol '([^']+)'")


def _ptxld() -> list[tuple[int, str]]:
    return sorted((d.line, d.message.split("`")[1]) for d in check_source(MODULE) if d.code == "PTX0301")


def test_undeclared_names_match_the_recorded_ptxas_output():
    recorded = open(os.path.join(DATA, "undeclared_names.ptxas.txt"), encoding="utf-8").read()
    expected = sorted((int(line), name) for line, name in _UNKNOWN.findall(recorded))
    assert len(expected) == 7
    assert _ptxld() == expected


@pytest.mark.ptxas
@pytest.mark.skipif(PTXAS is None, reason="ptxas not installed")
def test_undeclared_names_match_ptxas():
    _, out = assemble(MODULE)
    assert _ptxld() == sorted((int(line), name) for line, name in _UNKNOWN.findall(out))


def test_a_big_module_reports_the_same_names_whichever_order_it_is_checked_in():
    # the same function many times over: every copy reports the same names on its own lines
    head, body = MODULE.split(".visible .entry k", 1)
    copies = head + "".join(f".visible .entry k{i}" + body for i in range(30))
    diags = [d for d in check_source(copies) if d.code == "PTX0301"]
    assert len(diags) == 30 * 7


LATER = open(os.path.join(DATA, "declared_later.ptx"), encoding="utf-8").read()
_ERROR_LINE = re.compile(r"line (\d+); (?:error|fatal)\s*:")


def _later_lines() -> list[int]:
    return sorted(d.line for d in check_source(LATER) if d.severity == "error")


def test_names_declared_further_down_match_the_recorded_ptxas_output():
    # a global, a function, a register and a guard predicate used before their declarations
    # (a label may be: `bra $L_later` is fine), inside and outside nested blocks
    recorded = open(os.path.join(DATA, "declared_later.ptxas.txt"), encoding="utf-8").read()
    assert _later_lines() == sorted({int(x) for x in _ERROR_LINE.findall(recorded)})
    assert all(d.code == "PTX0301" and "before its declaration" in d.message
               for d in check_source(LATER) if d.severity == "error")


@pytest.mark.ptxas
@pytest.mark.skipif(PTXAS is None, reason="ptxas not installed")
def test_names_declared_further_down_match_ptxas():
    _, out = assemble(LATER)
    assert _later_lines() == sorted({int(x) for x in _ERROR_LINE.findall(out)})


@pytest.mark.parametrize("operands", ["%r1, [_]", "[_], %r1"])
def test_a_sink_is_no_address(operands):
    # ptxas: "Parsing error near '_': syntax error"; `_` is a sink only among destinations
    op = "ld.global.u32" if operands.startswith("%") else "st.global.u32"
    text = MODULE.split(".visible .entry k", 1)[0] + (
        ".visible .entry q()\n{\n\t.reg .b32 %r<4>;\n\t" + f"{op} {operands};\n\tret;\n}}\n")
    errors = [d for d in check_source(text) if d.severity == "error"]
    assert [d.line for d in errors] == [text.count("\n", 0, text.index(op)) + 1]


EXTERN_FIRST = open(os.path.join(DATA, "declared_extern_first.ptx"), encoding="utf-8").read()


def test_a_prototype_or_extern_declaration_before_use_is_a_declaration():
    # `.func later(...);` and `.extern .global .u32 g;` come first, their definitions after the
    # kernel that uses them: ptxas 13.0 assembles this (with a warning about the extern)
    assert not [d for d in check_source(EXTERN_FIRST) if d.severity == "error"]


@pytest.mark.ptxas
@pytest.mark.skipif(PTXAS is None, reason="ptxas not installed")
def test_a_prototype_or_extern_declaration_before_use_is_a_declaration_to_ptxas():
    code, out = assemble(EXTERN_FIRST)
    assert code == 0, out


def _scoping_module(rng) -> str:
    """A kernel whose registers are declared at random places: at the top, further down, in
    nested blocks, or nowhere; instructions (some guarded) use them anywhere."""
    lines = [".version 8.0", ".target sm_90", ".address_size 64", ".visible .entry k(.param .u64 p)", "{"]
    top = rng.sample(["%a", "%b", "%c", "%d"], rng.randint(1, 4))
    later = [n for n in ["%a", "%b", "%c", "%d"] if n not in top]
    lines += [".reg .b32 " + ", ".join(top) + ";", ".reg .pred %p;"]
    depth = 0
    for _ in range(rng.randint(4, 12)):
        r = rng.random()
        if r < 0.15 and later:
            lines.append(".reg .b32 " + later.pop() + ";")
        elif r < 0.25 and depth == 0:
            lines.append("{")
            depth = 1
            if rng.random() < 0.7:
                lines.append(".reg .b32 %t;")
        elif r < 0.32 and depth == 1:
            lines.append("}")
            depth = 0
        elif r < 0.40 and depth == 1:
            lines.append(".reg .b32 %u;")
        else:
            d, x, y = (rng.choice(["%a", "%b", "%c", "%d", "%t", "%u"]) for _ in range(3))
            lines.append(("@%p " if rng.random() < 0.2 else "") + f"add.s32 {d}, {x}, {y};")
    lines += ["}"] * depth + ["ret;", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.ptxas
@pytest.mark.skipif(PTXAS is None, reason="ptxas not installed")
def test_declaration_order_and_block_scopes_agree_with_ptxas():
    # ptxas stops at the end of the block where a forward reference turns out not to be a label
    # ("Label expected for forward reference"), so it may report fewer lines than ptxld: the
    # verdict and the first error line agree, and every line ptxas names, ptxld names too
    import random
    rng = random.Random(20261121)
    for _ in range(40):
        text = _scoping_module(rng)
        _, out = assemble(text)
        theirs = {int(n) for n in re.findall(r"line (\d+); (?:error|fatal)", out)}
        mine = {d.line for d in check_source(text) if d.severity == "error"}
        assert bool(mine) == bool(theirs), (text, out)
        if theirs:
            assert min(mine) == min(theirs) and theirs <= mine, (text, out)
