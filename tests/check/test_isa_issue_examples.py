"""The examples that whole-ISA checking was built for: each one is refused by ptxas 13.0 (checked
live where ptxas is installed), reported by `ptxld check` on the line ptxas names, and refused by
`RawModule` with the same diagnostics unless checking is turned off."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile

import numpy as np
import pytest
from cli_runner import CliRunner

import ptxld
from ptxld import emu
from ptxld.cli import main as cli_main

HEAD = ".version 8.5\n.target sm_90\n.address_size 64\n"
DECLS = """.reg .pred %p<3>;
.reg .b16 %h<9>;
.reg .b32 %r<4>;
.reg .b64 %rd<3>;
.reg .f64 %fd<4>;
.reg .f16x2 %x<9>;
ld.param.u64 %rd1, [p];
"""

# (the statement, the rule ptxld reports, what ptxas 13.0 says)
EXAMPLES = [
    ("rcp.approx.f64 %fd1, %fd2;", "PTX0803", "'.ftz' modifier required"),
    ("sqrt.approx.f64 %fd1, %fd2;", "PTX0803", "Illegal modifier '.approx'"),
    ("ex2.approx.f64 %fd1, %fd2;", "PTX0803", "Unexpected instruction types"),
    ("wmma.lod.a.sync.aligned.row.m16n16k16.global.f16 {%x1,%x2,%x3,%x4,%x5,%x6,%x7,%x8}, [%rd1];",
     "PTX0801", "Unknown modifier '.lod'"),
    ("vote.ballot.b32 %r1, %p1;", "PTX0604", "without '.sync' is not supported"),
    ("mov.u32 %r1, %tid.q;", "PTX0807", "Unknown vector selector"),
    ("mov.u32 %r1, %laneid.x;", "PTX0807", "Unknown field"),
    ("mov.u32 %tid.x, %r1;", "PTX0808", "Read-only special register"),
    ("mov.v8.b16 {%h1,%h2,%h3,%h4,%h5,%h6,%h7,%h8}, {%h1,%h2,%h3,%h4,%h5,%h6,%h7,%h8};", "PTX0809",
     "Illegal vector size: 8"),
]
EXTERN = HEAD + """.extern .global .u32 gx;
.global .u32 gx;
.visible .entry k(.param .u64 p)
{
.reg .b32 %r1;
ld.global.u32 %r1, [gx];
ret;
}
"""


def _module(statement: str) -> str:
    return HEAD + ".visible .entry k(.param .u64 p)\n{\n" + DECLS + statement + "\nret;\n}\n"


def _line(src: str, needle: str) -> int:
    return next(i for i, line in enumerate(src.splitlines(), 1) if needle in line)


def _ptxas(src: str) -> str | None:
    exe = shutil.which("ptxas")
    if exe is None:
        return None
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.ptx")
        with open(path, "w") as f:
            f.write(src)
        return subprocess.run([exe, "-arch=sm_90", path, "-o", os.devnull], capture_output=True,
                              text=True).stderr


@pytest.mark.parametrize("statement,code,says", EXAMPLES, ids=[e[0].split()[0] for e in EXAMPLES])
def test_checker_reports_what_ptxas_refuses(statement, code, says):
    src = _module(statement)
    line = _line(src, statement)
    errors = [d for d in ptxld.check(src) if d.severity == "error"]
    assert [(d.code, d.line) for d in errors] == [(code, line)]
    out = _ptxas(src)
    if out is not None:
        assert re.search(rf"line {line}; error\s*: .*{re.escape(says)}", out), out


def test_extern_variable_resolved_by_a_module_local_definition():
    errors = [d for d in ptxld.check(EXTERN) if d.severity == "error"]
    assert [(d.code, d.line) for d in errors] == [("PTX0013", 5)]
    visible = EXTERN.replace("\n.global .u32 gx;", "\n.visible .global .u32 gx;")
    assert not [d for d in ptxld.check(visible) if d.severity == "error"]
    out = _ptxas(EXTERN)
    if out is not None:
        assert re.search(r"line 5; error\s*: '.extern' variable 'gx' cannot be resolved", out), out
        assert "error" not in _ptxas(visible)


@pytest.mark.parametrize("statement,code,says", EXAMPLES[:3] + EXAMPLES[4:5],
                         ids=["rcp", "sqrt", "ex2", "vote"])
def test_raw_module_refuses_with_the_checkers_diagnostics(statement, code, says):
    src = _module(statement)
    with pytest.raises(emu.ModuleError) as e:
        ptxld.RawModule(code=src)
    assert [d.code for d in e.value.diagnostics] == [code]
    assert f"error[{code}]" in str(e.value)


def test_raw_module_check_false_runs_what_the_emulator_can():
    # rcp.approx.f64 without .ftz: ptxas refuses it; with checking off the emulator runs it as
    # the approximate reciprocal it would be
    src = HEAD + """.visible .entry k(.param .u64 p)
{
.reg .b64 %rd<2>;
.reg .f64 %fd<3>;
ld.param.u64 %rd1, [p];
ld.global.f64 %fd1, [%rd1];
rcp.approx.f64 %fd2, %fd1;
st.global.f64 [%rd1], %fd2;
ret;
}
"""
    with pytest.raises(emu.ModuleError):
        ptxld.RawModule(code=src)
    buf = np.array([4.0])
    ptxld.RawModule(code=src, check=False).get_function("k")(1, 1, [buf])
    assert abs(buf[0] - 0.25) < 1e-6


def test_run_refuses_unless_no_check(tmp_path):
    src = _module("vote.ballot.b32 %r1, %p1;")
    path = tmp_path / "m.ptx"
    path.write_text(src)
    buf = tmp_path / "b.npy"
    np.save(buf, np.zeros(4, np.uint32))
    r = CliRunner().invoke(cli_main, ["run", str(path), "-k", "k", "-b", "1", str(buf)])
    assert r.exit_code == 1 and "PTX0604" in r.output
    r = CliRunner().invoke(cli_main, ["run", str(path), "-k", "k", "-b", "1", "--no-check", str(buf)])
    assert r.exit_code == 0, r.output
