"""The emulator against results recorded on a GPU (NVIDIA H200, sm_90, driver JIT of the same PTX):
tests/emu/data/hw_results.npz, made by tools/hwcheck (forms.py lists the instruction forms,
README there says how to record again). 128 threads per job, inputs mixing random words, edge
values and small numbers.

Bit-exact for every SIMD video form (vadd2/4 ... vset2/4 with selectors, masks, .sat, .add),
bmsk, szext, cvt.pack, dp4a, dp2a, fns (base <= 31: larger bases are undefined in the ISA) and
the carry chains. Scalar video forms (vadd ... vset, vmad with selectors, merges, .sat and
secondary operations) too: there the GPU departs from the PTX ISA's pseudocode in ways the
emulator follows (docs/video-instructions.md), and every recorded form must agree bit for bit.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import ptxld

DATA = np.load(Path(__file__).resolve().parent / "data" / "hw_results.npz")
JOBS = sorted({k.rsplit(".", 1)[0] for k in DATA.files})
SCALAR = re.compile(r"^(vadd|vsub|vabsdiff|vmin|vmax|vshl|vshr|vset|vmad)\.")


def _forms(text: str) -> list[str]:
    """The instruction under test of out0..out7 of a job (lines between the `mov.b32 %d, %c`)."""
    lines = text.splitlines()
    return [lines[i + 1] for i, ln in enumerate(lines) if ln == "mov.b32 %d, %c;"]


def _emulate(name: str) -> tuple[np.ndarray, np.ndarray]:
    rows, want = DATA[f"{name}.in"], DATA[f"{name}.out"]
    n = rows.shape[0]
    full = np.zeros((n, 8), np.uint64)
    full[:, :rows.shape[1]] = rows
    out = np.zeros((n, 8), np.uint64)
    kernel = ptxld.RawModule(code=str(DATA[f"{name}.ptx"])).get_function("k")
    kernel((1,), (n,), [full, out])
    return (out if name.startswith("carry") else out.astype(np.uint32)), want


def _scalar_disagreements() -> set[str]:
    found = set()
    for name in JOBS:
        if name.startswith("carry"):
            continue
        got, want = _emulate(name)
        for j, form in enumerate(_forms(str(DATA[f"{name}.ptx"]))):
            if SCALAR.match(form) and not np.array_equal(got[:, j], want[:, j]):
                found.add(form)
    return found


@pytest.mark.parametrize("name", [j for j in JOBS])
def test_non_scalar_forms_match_hardware(name):
    got, want = _emulate(name)
    forms = _forms(str(DATA[f"{name}.ptx"])) if not name.startswith("carry") else ["carry"] * 8
    for j, form in enumerate(forms):
        if SCALAR.match(form):
            continue
        ok = got[:, j] == want[:, j]
        if form.startswith("fns"):
            rows = DATA[f"{name}.in"]
            ok |= rows[:, 1] > 31                  # base > 31: undefined in the ISA
        assert ok.all(), (form, np.flatnonzero(~ok)[:4])


def test_scalar_video_forms_against_hardware():
    forms = [f for name in JOBS if not name.startswith("carry")
             for f in _forms(str(DATA[f"{name}.ptx"])) if SCALAR.match(f)]
    assert len(forms) == 200                   # 160 vadd ... vset forms and 40 vmad forms
    assert sorted(_scalar_disagreements()) == []
