"""Command-line conventions: exit codes (130 on Ctrl-C, 3 documented), a light `--help`, stdin
named `<stdin>`, a pure-JSON report with `--fix --format json -`, directories checked, SARIF
related locations with lines, and messages in the words of the PTX ISA."""
from __future__ import annotations

import json
import subprocess
import sys

from cli_runner import CliRunner

import ptxld
from ptxld.checker import all_rules, check_source
from ptxld.cli import main

GOOD = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n"


def test_help_does_not_import_the_emulator_or_numpy():
    code = ("import sys; from ptxld.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m == 'numpy' or m.startswith('ptxld.emu')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().endswith("[]"), out.stdout[-300:]
    for name in ("check", "explain", "fmt", "parse", "rules", "run", "sass", "wmma"):
        assert f"  {name} " in out.stdout


def test_help_documents_the_exit_codes():
    text = CliRunner().invoke(main, ["--help"]).output
    assert "3 internal error" in text and "130" in text


def test_ctrl_c_exits_130(monkeypatch):
    def interrupted(path):
        raise KeyboardInterrupt
    monkeypatch.setattr("ptxld.cli.read_ptx", interrupted)
    r = CliRunner().invoke(main, ["parse", "x.ptx"])
    assert r.exit_code == 130


def test_stdin_is_named_stdin():
    r = CliRunner().invoke(main, ["parse", "-"], input=GOOD.replace("ret;", "ld.global.u32 %r1, [x];"))
    assert "<stdin>:" in r.output and "-:" not in r.output.replace("<stdin>:", "")
    r = CliRunner().invoke(main, ["check", "-"], input=GOOD.encode() + b"// \xe9\n")
    assert "<stdin>:" in r.output


def test_fix_with_json_keeps_stderr_pure_json():
    r = CliRunner().invoke(main, ["check", "--fix", "--format", "json", "-"],
                           input=GOOD.replace(".address_size 64\n", ".address_size 64\n.address_size 64\n"))
    assert r.stdout.count(".address_size") == 1 and check_source(r.stdout) == []
    doc = json.loads(r.stderr)
    assert doc["files"][0]["file"] == "<stdin>"


def test_check_on_a_directory_checks_the_ptx_files_under_it(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.ptx").write_text(GOOD)
    (tmp_path / "b.ptx").write_text(GOOD.replace("ret;", "ld.glob.u32 %r1, [x];"))
    (tmp_path / "notes.txt").write_text("not ptx")
    r = CliRunner().invoke(main, ["check", str(tmp_path)])
    assert r.exit_code == 1 and "b.ptx" in r.output and "2 file(s) checked" in r.output
    empty = tmp_path / "empty"
    empty.mkdir()
    assert CliRunner().invoke(main, ["check", str(empty)]).exit_code == 2


def test_sarif_related_locations_carry_lines(tmp_path):
    f = tmp_path / "k.ptx"
    f.write_text(GOOD.replace(".address_size 64\n", ".address_size 64\n\n.address_size 64\n"))
    doc = json.loads(CliRunner().invoke(main, ["check", "--format", "sarif", str(f)]).stdout)
    related = [loc for res in doc["runs"][0]["results"] for loc in res.get("relatedLocations", [])]
    assert related
    for loc in related:
        region = loc["physicalLocation"]["region"]
        assert region["startLine"] == 3  # the first `.address_size`


def test_messages_speak_of_the_ptx_isa():
    for rule in all_rules():
        for d in check_source(rule.bad.source()):
            words = " ".join([d.message, d.help, *d.notes, *(s.message for s in d.secondary)]).lower()
            assert "seed" not in words and "ptxas-vs" not in words, (rule.code, words)
    assert "seed" not in CliRunner().invoke(main, ["check", "--help"]).output.lower()


def test_api_rejects_text_grids():
    mod = ptxld.RawModule(code=GOOD)
    try:
        mod.get_function("k")("12", 1, [])
    except ptxld.EmulationError as e:
        assert "'12'" in str(e)
    else:
        raise AssertionError("a grid given as a string was accepted")


def test_readme_lists_every_command():
    import os
    readme = open(os.path.join(os.path.dirname(__file__), "..", "..", "README.md"), encoding="utf-8").read()
    for name in main.list_commands():
        assert f"`ptxld {name}" in readme, name
        cmd = main.get_command(name)
        for sub in getattr(cmd, "commands", {}):
            assert sub in readme, (name, sub)
    for option in ("rules [--format", "--color", "--memory-budget", "--max-steps", "--max-call-depth"):
        assert option in readme, option
    assert "3 internal error" in readme and "130" in readme


def test_wmma_and_ld_models_spell_spaces_and_types_alike():
    text = (".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
            ".reg .b32 %r<9>;\n.reg .f32 %f<2>;\n.reg .b64 %rd<3>;\n"
            "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, [%rd1];\n"
            "ld.global.f32 %f1, [%rd1];\nret;\n}\n")
    rows = [json.loads(x) for x in CliRunner().invoke(main, ["parse", "--json", "-"], input=text).stdout.splitlines()]
    assert [(r["space"], r["type"]) for r in rows] == [(".global", ".f16"), (".global", ".f32")]
    assert [i.load.type for i in ptxld.parse(text).loads()] == [".f16", ".f32"]


def test_running_out_of_memory_is_a_clear_error(monkeypatch):
    def exhausted(path):
        raise MemoryError
    monkeypatch.setattr("ptxld.cli.read_ptx", exhausted)
    r = CliRunner().invoke(main, ["parse", "x.ptx"])
    assert r.exit_code == 2 and "out of memory" in r.output and "internal error" not in r.output
