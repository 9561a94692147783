"""Which ldmatrix/stmatrix `.b8` forms ptxas accepts: every product of shape × .num × .trans ×
type (× source format) for one target, each assembled alone; prints one line per form,
`accept` or `refuse` (with ptxas's first message).

    python tools/ptxas_probe/matrix_b8_forms.py [sm_100a] [--version 8.8]
"""
from __future__ import annotations

import argparse
import itertools
import shutil
import subprocess
import tempfile
from pathlib import Path

LD_SHAPES = (".m8n8", ".m16n16", ".m8n16")
ST_SHAPES = (".m8n8", ".m16n8")
NUMS = (".x1", ".x2", ".x4")
TRANS = ("", ".trans")
LD_TYPES = (".b16", ".b8", ".b8x16.b6x16_p32", ".b8x16.b4x16_p64")
ST_TYPES = (".b16", ".b8")
NREGS = {".x1": 1, ".x2": 2, ".x4": 4}


def regs_for(shape: str, num: str) -> int:
    """Registers the destination takes: two per 16x16 matrix, one per 8-row matrix."""
    return NREGS[num] * (2 if shape == ".m16n16" else 1)


def kernel(line: str, target: str, version: str) -> str:
    return (f".version {version}\n.target {target}\n.address_size 64\n"
            ".visible .entry k() {\n.reg .b32 %r<8>;\n.reg .b64 %a;\n.shared .align 16 .b8 s[1024];\n"
            f"mov.u64 %a, s;\n{line}\nret;\n}}\n")


def forms():
    for shape, num, trans, ty in itertools.product(LD_SHAPES, NUMS, TRANS, LD_TYPES):
        regs = ", ".join(f"%r{i}" for i in range(regs_for(shape, num)))
        yield f"ldmatrix.sync.aligned{shape}{num}{trans}.shared{ty} {{{regs}}}, [%a];"
    for shape, num, trans, ty in itertools.product(ST_SHAPES, NUMS, TRANS, ST_TYPES):
        regs = ", ".join(f"%r{i}" for i in range(NREGS[num]))
        yield f"stmatrix.sync.aligned{shape}{num}{trans}.shared{ty} [%a], {{{regs}}};"


def verdict(line: str, target: str, version: str, tmp: Path) -> tuple[bool, str]:
    src = tmp / "k.ptx"
    src.write_text(kernel(line, target, version))
    done = subprocess.run(["ptxas", f"-arch={target}", str(src), "-o", str(tmp / "k.cubin")],
                          capture_output=True, text=True, check=False)
    first = next((ln for ln in done.stderr.splitlines() if "error" in ln), "")
    return done.returncode == 0, first.split("error   :")[-1].strip()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("target", nargs="?", default="sm_100a")
    ap.add_argument("--version", default="8.8")
    args = ap.parse_args()
    if shutil.which("ptxas") is None:
        raise SystemExit("ptxas is not on PATH")
    with tempfile.TemporaryDirectory() as d:
        for line in forms():
            ok, why = verdict(line, args.target, args.version, Path(d))
            print(f"{'accept' if ok else 'refuse'}  {line.split(' ')[0]}" + ("" if ok else f"  ({why})"))


if __name__ == "__main__":
    main()
