"""Run the hardware-check jobs in the emulator and compare with the GPU's outputs:
python emulate.py JOBS_DIR HW_DIR  (prints each form whose results differ)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import ptxld


def run_job(folder: Path, name: str, n: int) -> np.ndarray:
    rows = np.fromfile(folder / f"{name}.in", np.uint64).reshape(n, 8)
    out = np.zeros((n, 8), np.uint64)
    ptxld.RawModule(code=(folder / f"{name}.ptx").read_text()).get_function("k")((1,), (n,), [rows, out])
    return out


def main(jobs: str, hw: str | None) -> int:
    folder = Path(jobs)
    bad = 0
    for line in (folder / "jobs.txt").read_text().split("\n"):
        if not line.strip():
            continue
        name, n = line.split()
        got = run_job(folder, name, int(n))
        if hw is None:
            continue
        want = np.fromfile(Path(hw) / f"{name}.out", np.uint64).reshape(int(n), 8)
        text = (folder / f"{name}.ptx").read_text()
        body = [ln for ln in text.splitlines() if ln.startswith(("v", "bmsk", "szext", "fns", "cvt.pack", "dp"))]
        for j in range(8):
            if not np.array_equal(got[:, j], want[:, j]):
                bad += 1
                i = int(np.flatnonzero(got[:, j] != want[:, j])[0])
                rows = np.fromfile(folder / f"{name}.in", np.uint64).reshape(int(n), 8)
                what = body[j] if j < len(body) and not name.startswith("carry") else f"{name} out{j}"
                print(f"{name} out{j}: {what}  thread {i}: in {[hex(int(v) & 0xFFFFFFFF) for v in rows[i, :3]]} "
                      f"emu {int(got[i, j]):#x} hw {int(want[i, j]):#x} ({int((got[:, j] != want[:, j]).sum())} threads)")
    return bad


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None) else 0)
