"""`ptxld parse` and `ptxld fmt`, and the CLI's handling of a closed pipe."""
from __future__ import annotations

import json
import subprocess
import sys

from cli_runner import CliRunner

from ptxld.cli import main

SRC = (".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
       ".reg .b64 %rd<3>;\n.reg .f32 %f<5>;\nld.param.u64 %rd1,[p];\n"
       "ld.global.nc.v4.f32 {%f1,%f2,%f3,%f4},[%rd1+-16];\n}\n")


def test_parse_json_describes_each_load(tmp_path):
    f = tmp_path / "k.ptx"
    f.write_text(SRC)
    r = CliRunner().invoke(main, ["parse", str(f), "--json"])
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.output.splitlines()]
    assert [(x["line"], x["form"], x["space"], x["vec"], x["type"]) for x in rows] == [
        (8, "ld", ".param", None, ".u64"), (9, "ld.global.nc", ".global", ".v4", ".f32")]
    assert rows[1]["address"] == {"kind": "address", "mode": "register+offset", "base": "%rd1",
                                  "offset": -16, "unified": False}


def test_fmt_check_then_in_place_then_clean(tmp_path):
    f = tmp_path / "k.ptx"
    f.write_text(SRC)
    r = CliRunner().invoke(main, ["fmt", "--check", str(f)])
    assert r.exit_code == 1 and "would reformat" in r.output
    assert CliRunner().invoke(main, ["fmt", "-i", str(f)]).exit_code == 0
    assert "{%f1, %f2, %f3, %f4}, [%rd1+-16];" in f.read_text()
    assert CliRunner().invoke(main, ["fmt", "--check", str(f)]).exit_code == 0


def test_fmt_refuses_a_module_with_syntax_errors(tmp_path):
    f = tmp_path / "bad.ptx"
    f.write_text(SRC.replace("[%rd1+-16]", "[%rd1-16]"))
    r = CliRunner().invoke(main, ["fmt", str(f)])
    assert r.exit_code == 1 and ":9:" in r.output and "syntax errors" in r.output


def test_closed_pipe_is_not_an_error():
    p = subprocess.run(f"{sys.executable} -m ptxld.cli rules | head -1", shell=True,
                       capture_output=True, text=True)
    assert p.stdout.startswith("PTX0101") and "internal error" not in p.stderr
