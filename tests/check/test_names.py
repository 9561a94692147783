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
