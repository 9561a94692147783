"""Pack the GPU's results into tests/emu/data/hw_results.npz:
python collect.py JOBS_DIR HW_DIR. Per job: its PTX text, the thread rows given, the rows
returned (32-bit jobs keep the low words only)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[2] / "tests" / "emu" / "data" / "hw_results.npz"


def main(jobs: str, hw: str) -> None:
    blobs = {}
    for line in (Path(jobs) / "jobs.txt").read_text().split("\n"):
        if not line.strip():
            continue
        name, n = line.split()
        rows = np.fromfile(Path(jobs) / f"{name}.in", np.uint64).reshape(int(n), 8)
        out = np.fromfile(Path(hw) / f"{name}.out", np.uint64).reshape(int(n), 8)
        if not name.startswith("carry"):
            rows, out = rows[:, :3].astype(np.uint32), out.astype(np.uint32)
        blobs[f"{name}.ptx"] = np.array((Path(jobs) / f"{name}.ptx").read_text())
        blobs[f"{name}.in"], blobs[f"{name}.out"] = rows, out
    np.savez_compressed(OUT, **blobs)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
