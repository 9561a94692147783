"""Write the hardware-check jobs (PTX, inputs, jobs.txt) into a folder: python make_jobs.py DIR."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "tests" / "emu"))
import forms  # noqa: E402
import snippets  # noqa: E402

THREADS = 128


def main(folder: str) -> None:
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    names = []
    for name, body, decls in forms.jobs():
        (out / f"{name}.ptx").write_text(snippets.text(body, decls))
        forms.inputs(rng, THREADS).tofile(out / f"{name}.in")
        names.append(f"{name} {THREADS}")
    (out / "jobs.txt").write_text("\n".join(names) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
