"""The `sass` command group, and code images (raw .bin, cubin) against nvdisasm's listing."""
from __future__ import annotations

import re
import subprocess
import sys

from cli_runner import CliRunner

from ptxld.sass import elf
from ptxld.sass.cli import sass

from sass_vectors import DATA


def run(*args):
    return CliRunner().invoke(sass, list(args))


def test_asm_disasm_roundtrip_via_raw_bin(tmp_path):
    out = tmp_path / "code.bin"
    r = run("asm", "LDG.E R4, [R4+0x10] &wr=0x5 ?trans1", "LD.E.CG.64 R4, [R6], P0", "--bin", str(out))
    assert r.exit_code == 0, r.output
    assert r.output.split()[0] == "0xeed4200001070404"
    r = run("disasm", "--file", str(out), "--annotations")
    assert r.exit_code == 0, r.output
    assert "LDG.E R4, [R4+0x10] &wr=0x5 ?trans1 ;" in r.output
    assert "LD.E.CG.64 R4, [R6], P0" in r.output


def test_cubin_text_sections_match_nvdisasm():
    """Every LDG/LD nvdisasm printed for the committed cubin, at the same offset."""
    listing = (DATA / "kernel_sm52.nvdisasm.txt").read_text()
    expected, section = {}, None
    for line in listing.splitlines():
        m = re.match(r"\s*\.section\s+(\.text\.\w+)", line)
        if m:
            section = m.group(1)
        m = re.match(r"\s*/\*([0-9a-f]{4})\*/\s+\{?\s*(.*?)\s*[;}]", line)
        if m and re.match(r"(@!?P\w+\s+)?LDG?[. ]", m.group(2)):
            expected[(section, int(m.group(1), 16))] = m.group(2).strip()
    assert len(expected) == 4
    got = {}
    for name, code in elf.code_sections((DATA / "kernel_sm52.cubin").read_bytes()):
        for line in elf.decode_code(code, arch="sm_52"):
            if line.text and line.text != "NOP":
                got[(name, line.offset)] = line.text
    assert got == expected
    r = run("disasm", "--arch", "sm_52", "-f", str(DATA / "kernel_sm52.cubin"))
    assert r.exit_code == 0 and all(t in r.output for t in expected.values())


def test_lower_command():
    r = run("lower", "ld.global.nc.v4.f32 {%f1,%f2,%f3,%f4}, [%rd1+8388608];", "--uniform")
    assert r.exit_code == 0
    assert r.output.splitlines() == ["IADD32I R2.CC, R2, 0x1000000", "IADD.X R3, RZ, R3",
                                     "LDG.E.CI.U.128 R4, [R2+-0x800000]"]


def test_errors_exit_1_with_a_message_and_no_traceback():
    for args in (["asm", "LDG.E R4, [R2+0x1000000]"], ["disasm", "0xeec8200000070404"],
                 ["disasm", "xyz"], ["lower", "ld.shared.u32 %r1, [%r2];"]):
        r = run(*args)
        assert r.exit_code == 1, args
        assert "Traceback" not in r.output and "error:" in r.output


def test_usage_errors_exit_2(tmp_path):
    assert run("asm").exit_code == 2
    assert run("disasm", "--file", str(tmp_path / "missing.bin")).exit_code == 2


def test_bad_image_size(tmp_path):
    p = tmp_path / "odd.bin"
    p.write_bytes(b"\0" * 40)
    r = run("disasm", "-f", str(p))
    assert r.exit_code == 1 and "32-byte groups" in r.output


def test_module_is_runnable_standalone():
    p = subprocess.run([sys.executable, "-m", "ptxld.sass.cli", "disasm", "0xeed4200001070404"],
                       capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.strip() == "LDG.E R4, [R4+0x10]"


def test_control_command_decodes_and_encodes_a_ptxas_control_word():
    # 0x001fc400fe2007b1 precedes an LDG in ptxas output (words_ptxas.jsonl.gz)
    r = run("control", "0x001fc400fe2007b1")
    assert r.exit_code == 0
    assert r.output.splitlines()[0].split()[2] == "--:-:6:-:1"
    r = run("control", "--", "--:-:6:-:1", "--:-:-:-:1", "--:-:-:-:1")
    assert r.exit_code == 0 and r.output.strip() == "0x001fc400fe2007b1"
    assert run("control", "0x1", "0x2").exit_code == 2
    assert run("control", "--", "--:-:9:-:1", "--:-:-:-:1", "--:-:-:-:1").exit_code == 1
