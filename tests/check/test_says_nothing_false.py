"""What ptxld says matches ptxas: `explain` shows an illegal load's diagnostics and exits 1;
non-ASCII input is one error at its line and column, the character named; header directives
sharing a line are fine; a trailing comma in a parameter list is a syntax error; output paths are
checked before any work; one default target for explain and the wmma commands."""
from __future__ import annotations

import pytest
from cli_runner import CliRunner

import ptxld
from ptxas_util import PTXAS, assemble
from ptxld.cli import main
from ptxld.spec.targets import DEFAULT_TARGET

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"
# the kernel `explain` checks an instruction in (nvcc's register names)
KERNEL = (HEAD + ".visible .entry k(.param .u64 p)\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
          "ld.param.u64 %rd1, [p];\n{}\nret;\n}}\n")


def _run(*args, **kw):
    return CliRunner().invoke(main, list(args), **kw)


@pytest.mark.parametrize("instruction, code", [
    ("ld.shared.nc.u32 %r1, [%rd1];", "PTX0401"),
    ("ld.global.u64 %r1, [%rd1];", "PTX0304"),
    ("ld.volatile.global.ca.u32 %r1, [%rd1];", "PTX0203"),
    ("ld.glob.u32 %r1, [%rd1];", "PTX0201"),
])
def test_explain_shows_the_diagnostics_of_an_illegal_load(instruction, code):
    r = _run("explain", instruction)
    assert r.exit_code == 1
    assert f"error[{code}]" in r.output
    assert "Canonical order" not in r.output and "bytes 0.." not in r.output
    if PTXAS is not None:
        assert assemble(KERNEL.format(instruction))[0] != 0


def test_explain_of_a_valid_load_exits_0():
    r = _run("explain", "ld.global.u32 %r1, [%rd1];")
    assert r.exit_code == 0 and "bytes 0..3" in r.output
    if PTXAS is not None:
        assert assemble(KERNEL.format("ld.global.u32 %r1, [%rd1];"))[0] == 0


def test_explain_checks_picture_paths_before_any_work(tmp_path):
    r = _run("explain", "ld.global.u32 %r1, [%rd1];", "--svg", str(tmp_path / "missing" / "x.svg"))
    assert r.exit_code == 2 and "does not exist" in r.output
    assert "Instruction:" not in r.output and "internal error" not in r.output
    r = _run("explain", "ld.global.u32 %r1, [%rd1];", "--svg", str(tmp_path / "x.svg"))
    assert r.exit_code == 2 and "no fragment" in r.output and "Instruction:" not in r.output
    assert "wmma.load.ld" not in r.output


def test_one_default_target_for_explain_and_wmma():
    for args in (["explain", "--help"], ["wmma", "table", "--help"], ["wmma", "explain", "--help"]):
        assert DEFAULT_TARGET in _run(*args).output, args


NON_ASCII = [
    (HEAD + "// caf\u00e9\n", "U+00E9", 4),
    ("\ufeff" + HEAD, "byte order mark", 1),
    (HEAD + "// a\u00a0b\n", "no-break space", 4),
]


@pytest.mark.parametrize("text, words, line", NON_ASCII)
def test_non_ascii_is_one_error_like_ptxas(text, words, line):
    diags = ptxld.check(text)
    assert len(diags) == 1
    d = diags[0]
    assert d.severity == "error" and words in d.message and d.line == line
    if PTXAS is not None:
        code, out = assemble(text)
        assert code != 0 and "non-ASCII" in out


def test_non_ascii_counts_in_json(tmp_path):
    f = tmp_path / "k.ptx"
    f.write_bytes((HEAD + "// caf").encode() + b"\xe9\n")
    r = _run("check", "--format", "json", str(f))
    assert r.exit_code == 1 and '"severity": "error"' in r.output


ONE_LINE = [
    ".version 8.0\n.target sm_80 .address_size 64\n.visible .entry k()\n{\nret;\n}\n",
    ".version 8.0 .target sm_80 .address_size 64 .visible .entry k() { ret; }\n",
    ".version 8.0\n.target sm_80,\n  texmode_unified .address_size 64\n.visible .entry k()\n{\nret;\n}\n",
]


@pytest.mark.parametrize("text", ONE_LINE)
def test_header_directives_may_share_a_line(text):
    assert ptxld.check(text) == []
    assert ptxld.check(ptxld.format(text)) == []
    if PTXAS is not None:
        assert assemble(text)[0] == 0


def test_trailing_comma_in_a_parameter_list_is_an_error_and_kept():
    text = HEAD + ".visible .entry k(.param .u64 p,)\n{\nret;\n}\n"
    assert any(d.code == "PTX0001" for d in ptxld.check(text))
    with pytest.raises(ptxld.FormatError):
        ptxld.format(text)  # never silently "fixed"
    if PTXAS is not None:
        assert assemble(text)[0] != 0
