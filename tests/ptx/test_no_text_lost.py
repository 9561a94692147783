"""The formatter and the parser never lose text: comments are moved, never dropped; a module
with syntax errors is refused (API and CLI alike); input that is not text is a TypeError; bad
parameter lists are syntax errors, never a crash. ptxas is the oracle for validity."""
from __future__ import annotations

import os
import re
import sys

import pytest
from cli_runner import CliRunner

import ptxld
from ptxld.cli import main

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "check"))
from ptxas_util import PTXAS, assemble  # noqa: E402

COMMENTED = """\
.version 8.0 // the version
.target sm_80
.address_size 64
.global .align 4 .u32 tab[4] = { 1, // one
   2, /* two */ 3,
   4 };
.visible .entry k( // parameters
	.param .u64 p, /* the pointer */
	.param .u32 n // count
) // after the header
/* before the body */ {
	.reg .b32 %r<4>;
	add.s32 %r1, /* first source */ %r2,
	    %r3; // trailing
	ld.global.u32 %r1, // split
	   [tab];
	ret;
}
"""
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _comments(text: str) -> list[str]:
    return sorted(" ".join(c.split()) for c in _COMMENT.findall(text))


def test_format_keeps_every_comment():
    out = ptxld.format(COMMENTED)
    assert _comments(out) == _comments(COMMENTED)
    assert ptxld.format(out) == out
    assert [(d.code, d.message) for d in ptxld.check(out)] == [
        (d.code, d.message) for d in ptxld.check(COMMENTED)]
    if PTXAS is not None:
        assert assemble(out)[0] == 0 and assemble(COMMENTED)[0] == 0


def test_fmt_in_place_keeps_every_comment(tmp_path):
    path = tmp_path / "c.ptx"
    path.write_text(COMMENTED, encoding="utf-8")
    res = CliRunner().invoke(main, ["fmt", "-i", str(path)])
    assert res.exit_code == 0, res.output
    assert _comments(path.read_text(encoding="utf-8")) == _comments(COMMENTED)


@pytest.mark.parametrize("bad", [
    ".version 8.0\n.target sm_80\n.visible .entry k(\n{\nld.global.u32 %r1, [x];\n}\n",  # unterminated header
    ".version 8.0\n.target sm_80\nthis is junk;\n.visible .entry k()\n{\nret;\n}\n",
])
def test_format_refuses_a_module_with_syntax_errors(bad):
    with pytest.raises(ptxld.FormatError) as e:
        ptxld.format(bad)
    assert e.value.diagnostics and "syntax error" in str(e.value)
    assert isinstance(e.value, ValueError)
    res = CliRunner().invoke(main, ["fmt", "-"], input=bad)
    assert res.exit_code == 1 and "<stdin>" in res.output and "not formatted" in res.output


def test_fmt_in_place_refuses_invalid_utf8(tmp_path):
    path = tmp_path / "bad.ptx"
    data = b".version 8.0\n.target sm_80\n.address_size 64\n// caf\xe9\n"
    path.write_bytes(data)
    res = CliRunner().invoke(main, ["fmt", "-i", str(path)])
    assert res.exit_code == 1 and "not valid UTF-8" in res.output
    assert path.read_bytes() == data


@pytest.mark.parametrize("header", [
    "k(, .param .u64 p)", "k(.param .u64 p,,.param .u64 q)", "k(,)", "k(.param .u64 p,)"])
def test_bad_parameter_lists_are_syntax_errors(header):
    text = f".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry {header}\n{{\nret;\n}}\n"
    m = ptxld.parse(text)
    assert [d.code for d in m.diagnostics] == ["PTX0001"]
    assert any(d.code == "PTX0001" for d in ptxld.check(text))
    with pytest.raises(ptxld.FormatError):
        ptxld.format(text)
    res = CliRunner().invoke(main, ["parse", "-"], input=text)
    assert res.exit_code == 1
    if PTXAS is not None:
        assert assemble(text)[0] != 0


@pytest.mark.parametrize("value", [None, 3, ["ld.u32"]])
def test_api_rejects_what_is_not_text(value):
    for f in (ptxld.parse, ptxld.check, ptxld.format):
        with pytest.raises(TypeError):
            f(value)


def test_api_reads_bytes_as_utf8():
    text = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n"
    assert ptxld.check(text.encode()) == ptxld.check(text)
    assert ptxld.format(text.encode()) == ptxld.format(text)
