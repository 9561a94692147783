"""`ptxld check/explain/rules`: exit codes 0/1/2, stdin, many files, formats."""
from __future__ import annotations

import json

from cli_runner import CliRunner

from ptxld.checker import cli as check_cli
from ptxld.checker.explain import explain_instruction
from ptxld.cli import main

GOOD = (".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
        "    .reg .b32 %r1;\n    .reg .b64 %rd1;\n    ld.param.u64 %rd1, [p];\n"
        "    ld.global.u32 %r1, [%rd1];\n    ret;\n}\n")
BAD = GOOD.replace("ld.global.u32", "ld.volatile.global.ca.u32")


def _write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def test_exit_0_and_1(tmp_path):
    r = CliRunner()
    assert r.invoke(main, ["check", _write(tmp_path, "a.ptx", GOOD)]).exit_code == 0
    res = r.invoke(main, ["check", _write(tmp_path, "b.ptx", BAD)])
    assert res.exit_code == 1 and "error[PTX0203]" in res.output


def test_exit_2_for_missing_and_binary_files(tmp_path):
    r = CliRunner()
    res = r.invoke(main, ["check", str(tmp_path / "nope.ptx")])
    assert res.exit_code == 2 and "cannot read" in res.output
    b = tmp_path / "x.cubin"
    b.write_bytes(b"\x7fELF\x00\x01\x02")
    assert r.invoke(main, ["check", str(b)]).exit_code == 2
    # an unreadable file among good ones still makes it 2
    assert r.invoke(main, ["check", _write(tmp_path, "a.ptx", GOOD), str(b)]).exit_code == 2


def test_stdin():
    res = CliRunner().invoke(main, ["check", "-", "--format", "json"], input=BAD)
    assert res.exit_code == 1
    doc = json.loads(res.output)
    assert doc["files"][0]["file"] == "<stdin>"
    assert doc["files"][0]["diagnostics"][0]["code"] == "PTX0203"


def test_many_files_in_parallel(tmp_path, monkeypatch):
    monkeypatch.setattr(check_cli, "PARALLEL_MIN_BYTES", 0)
    files = [_write(tmp_path, f"f{i}.ptx", BAD if i % 2 else GOOD) for i in range(4)]
    res = CliRunner().invoke(main, ["check", "--format", "sarif", *files])
    assert res.exit_code == 1
    results = json.loads(res.output)["runs"][0]["results"]
    assert sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results) == \
        sorted(files[1::2])


def test_strict_turns_seed_warnings_into_errors(tmp_path):
    text = GOOD.replace("ld.global.u32 %r1, [%rd1];", "ld.global.v2.u32 {%r1, _}, [%rd1];")
    path = _write(tmp_path, "s.ptx", text)
    r = CliRunner()
    assert r.invoke(main, ["check", path]).exit_code == 0
    res = r.invoke(main, ["check", "--strict", path])
    assert res.exit_code == 1 and "error[PTX0217]" in res.output


def test_rules_and_explain_code():
    r = CliRunner()
    res = r.invoke(main, ["rules"])
    assert res.exit_code == 0 and "PTX0203" in res.output and "PTX0504" in res.output
    res = r.invoke(main, ["explain", "ptx0203"])
    assert res.exit_code == 0 and res.output.startswith("# PTX0203")
    assert r.invoke(main, ["explain", "PTX9999"]).exit_code == 2


def test_explain_matrix_instruction_without_a_target():
    """The API without a target explains for the default target (it raised NameError)."""
    ex = explain_instruction("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, "
                             "{%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};")
    assert "D (16×8 .f32) = A (16×16 .f16) · B (16×8 .f16) + C (16×8 .f32)" in ex.text


def test_explain_instruction_minimums():
    """Minimum versions/targets from the seeds' PTX/Target ISA notes (versions.md §5)."""
    r = CliRunner()
    cases = {
        "ld.global.L2::evict_last.v8.f32 {%a,%b,%c,%d,%e,%f,%g,%h}, [p];": "PTX ISA 8.8 and sm_100",
        "ld.global.nc.f32 %f, [p];": "PTX ISA 3.1 and sm_32",
        "ld.global.L2::cache_hint.b64 x, [p], pol;": "PTX ISA 7.4 and sm_80",
        "ld.mmio.relaxed.sys.global.u32 %r, [p];": "PTX ISA 8.2 and sm_70",
        "ld.shared::cluster.u32 %r3, [sh + 8];": "PTX ISA 7.8 and sm_90",
        "ld.global.f32 d, [a];": "PTX ISA 1.0 and any target",
    }
    for ins, want in cases.items():
        res = r.invoke(main, ["explain", ins])
        assert res.exit_code == 0, res.output
        assert f"Requires: {want}" in res.output, (ins, res.output)
    out = r.invoke(main, ["explain", "ld.s8 %r, [p];"]).output
    assert "sign-extended" in out and "generic addressing" in out
    out = r.invoke(main, ["explain", "ld.global.L2::evict_last.v8.f32 {%a,_,%c,%d,%e,%f,%g,%h}, [p];"]).output
    assert "bytes 4..7 not read (sink)" in out and "bytes 28..31 → %h" in out
    out = r.invoke(main, ["explain", "ld.u32.global.relaxed.gpu %r, [p];"]).output
    assert "Canonical order: ld.relaxed.gpu.global.u32" in out


def test_explain_wmma_delegates_to_the_wmma_tables():
    res = CliRunner().invoke(main, ["explain", "wmma.load.a.sync.aligned.row.m16n16k16.f16 {x0,x1,x2,x3,x4,x5,x6,x7}, [p];"])
    assert res.exit_code == 0 and "8 register(s) per thread" in res.output
    assert CliRunner().invoke(main, ["explain", "add.u32 %r, %r, 1;"]).exit_code == 2


def test_color_asked_for_is_kept_through_a_pipe(tmp_path, monkeypatch):
    # the runner's output is no terminal: colours only where `--color` asks for them, as
    # `ruff --color always` and `ls --color=always` do; `--no-color` and the default drop them
    monkeypatch.delenv("NO_COLOR", raising=False)
    bad = _write(tmp_path, "b.ptx", BAD)
    r = CliRunner()
    asked = r.invoke(main, ["check", "--color", bad])
    assert asked.exit_code == 1 and "\x1b[" in asked.output and "PTX0203" in asked.output
    for args in (["check", bad], ["check", "--no-color", bad]):
        res = r.invoke(main, args)
        assert res.exit_code == 1 and "\x1b[" not in res.output and "error[PTX0203]" in res.output
