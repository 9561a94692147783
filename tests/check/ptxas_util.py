"""Run NVIDIA ptxas 13.0 on PTX text (tests that use it are marked `ptxas`)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile

PTXAS = shutil.which("ptxas")
_TARGET = re.compile(r"^\s*\.target\s+([\w,\s]+)", re.M)
_VERSION = re.compile(r"^\s*\.version\s+(\d+)\.(\d+)", re.M)


def assemble(text: str, *, compile_only: bool = False, tries: int = 1) -> tuple[int, str]:
    """(exit code, messages). Targets below sm_75 are assembled with `-arch=sm_75`, which still
    applies the `.target`'s own rules. A crash (negative/139) is retried `tries` times."""
    m = _TARGET.search(text)
    arch = "sm_90"
    if m:
        t = (m.group(1).replace(",", " ").split() or ["sm_90"])[0].replace("compute_", "sm_")
        t = {"sm_101": "sm_110", "sm_101a": "sm_110a", "sm_101f": "sm_110f"}.get(t, t)  # renamed in 9.0
        num = re.match(r"sm_(\d+)", t)
        if num:
            arch = t if int(num.group(1)) >= 75 else "sm_75"
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "case.ptx")
        with open(path, "w") as f:
            f.write(text)
        cmd = [PTXAS, f"-arch={arch}", path, "-o", os.path.join(d, "out.cubin")]
        if compile_only:
            cmd.insert(1, "-c")
        for _ in range(max(1, tries)):
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
            if r.returncode not in (139, -11):
                break
        return r.returncode, (r.stdout + r.stderr).replace(path, "case.ptx")


def ptxas_version_ok(text: str) -> bool:
    """ptxas 13.0 knows PTX ISA up to 9.0."""
    m = _VERSION.search(text)
    return m is None or (int(m.group(1)), int(m.group(2))) <= (9, 0)
