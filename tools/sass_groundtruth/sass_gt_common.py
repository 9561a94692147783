"""Shared helpers of the ground-truth scripts: tool paths and versions, nvdisasm listings, ELF."""
from __future__ import annotations

import gzip
import io
import json
import os
import re
import subprocess
from pathlib import Path

from elftools.elf.elffile import ELFFile

ROOT = Path(os.environ.get("SASS_GT_TOOLS", "/tmp/sass_gt_tools"))
PTXAS12 = ROOT / "cu12/nvidia/cuda_nvcc/bin/ptxas"
PTXAS11 = ROOT / "cu11/nvidia/cuda_nvcc/bin/ptxas"
NVDISASM = ROOT / "triton/triton/backends/nvidia/bin/nvdisasm"
DATA = Path(__file__).resolve().parents[2] / "tests/sass/data"


def version(tool: Path) -> str:
    out = subprocess.run([str(tool), "--version"], capture_output=True, text=True).stdout
    m = re.search(r"V(\d+\.\d+\.\d+)", out)
    return m.group(1) if m else "?"


def tool_versions() -> dict:
    return {"ptxas": version(PTXAS12), "ptxas_m32": version(PTXAS11) if PTXAS11.exists() else "not installed",
            "nvdisasm": version(NVDISASM),
            "packages": ["nvidia-cuda-nvcc-cu12==12.9.86", "nvidia-cuda-nvcc-cu11==11.8.89",
                         "triton==3.3.1 (nvdisasm)"]}


_LINE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*$")
_HEX = re.compile(r"/\*\s*0x([0-9a-f]{16})\s*\*/")


_SECTION = re.compile(r"^\s*\.section\s+(\.text\.[^,\s]+)")


def parse_listing(text: str, *, by_section: bool = False) -> dict:
    """offset -> {"text", "paired"} for every instruction line nvdisasm printed
    ((section, offset) -> ... with by_section, for a cubin listing)."""
    out = {}
    section = None
    for line in text.splitlines():
        sm = _SECTION.match(line)
        if sm:
            section = sm.group(1)
            continue
        m = _LINE.match(line)
        if not m:
            continue
        body = _HEX.sub("", m.group(2)).strip()
        paired = body.startswith("{") or body.endswith("}")
        body = body.lstrip("{").strip().rstrip("}").strip().rstrip(";").strip()
        key = int(m.group(1), 16)
        out[(section, key) if by_section else key] = {"text": body, "paired": paired}
    return out


def nvdisasm(path: Path, arch: str | None = None) -> tuple[int, str, str]:
    cmd = [str(NVDISASM), "-hex"]
    cmd += ["-b", arch.upper().replace("_", "")] if arch else ["-c"]
    p = subprocess.run(cmd + [str(path)], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def text_sections(cubin: bytes) -> dict[str, bytes]:
    elf = ELFFile(io.BytesIO(cubin))
    return {s.name: s.data() for s in elf.iter_sections() if s.name.startswith(".text.")}


def write_jsonl_gz(path: Path, rows) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    lines = []
    for row in rows:
        lines.append(json.dumps(row, separators=(",", ":")))
        n += 1
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f:
        f.write(("\n".join(lines) + "\n").encode())   # mtime=0: byte-identical reruns
    return n
