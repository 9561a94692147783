"""`ptxld sass disasm --file`: cubins for GPUs whose SASS ptxld does not decode are refused by
the architecture in their ELF header; a file that is not a code image prints nothing to standard
output before its error."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_runner import CliRunner

from ptxld.cli import main
from ptxld.sass import elf

DATA = Path(__file__).parent / "data"
PTXAS = shutil.which("ptxas")
PTX = (".version 8.0\n.target {arch}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n"
       ".reg .b64 %rd<2>;\n.reg .b32 %r<2>;\nld.param.u64 %rd1, [p];\nld.global.u32 %r1, [%rd1];\n"
       "st.global.u32 [%rd1+4], %r1;\nret;\n}}\n")


def test_the_maxwell_cubin_is_read_as_sm52():
    assert elf.cubin_sm((DATA / "kernel_sm52.cubin").read_bytes()) == 52


@pytest.mark.ptxas
@pytest.mark.skipif(PTXAS is None, reason="ptxas not installed")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_newer_cubins_are_refused_by_their_header(tmp_path, arch):
    src, out = tmp_path / "k.ptx", tmp_path / "k.cubin"
    src.write_text(PTX.format(arch=arch))
    subprocess.run([PTXAS, f"-arch={arch}", str(src), "-o", str(out)], check=True)
    assert elf.cubin_sm(out.read_bytes()) == int(arch[3:])
    r = CliRunner().invoke(main, ["sass", "disasm", "--file", str(out)])
    assert r.exit_code == 1 and r.stdout == ""
    assert arch in r.stderr and "Maxwell" in r.stderr


def test_a_file_that_is_not_a_code_image_prints_nothing_first(tmp_path):
    f = tmp_path / "x.bin"
    f.write_bytes(os.urandom(100))
    r = CliRunner().invoke(main, ["sass", "disasm", "--file", str(f)])
    assert r.exit_code == 1 and r.stdout == "" and "32-byte groups" in r.stderr
