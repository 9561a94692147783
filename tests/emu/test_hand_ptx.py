"""Hand-written PTX of tests/kernels/ptx_hand/: assembled by ptxas (skipped without it) and
emulated against NumPy references from the comments that specify each kernel."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ptxld

HAND = Path(__file__).resolve().parents[1] / "kernels" / "ptx_hand"


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
@pytest.mark.parametrize("path", sorted(HAND.glob("*.ptx")), ids=lambda p: p.name)
def test_ptxas_accepts(path, tmp_path):
    r = subprocess.run(["ptxas", "-arch=sm_80", str(path), "-o", str(tmp_path / "x.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_vector_registers():
    n = 300
    x = np.random.default_rng(5).integers(0, 2**32, 4 * n, dtype=np.uint64).astype(np.uint32)
    out = np.zeros(4 * n, np.uint32)
    kernel = ptxld.RawModule(path=HAND / "vector_regs.ptx").get_function("vec_swizzle")
    kernel((3,), (128,), [x, out, np.uint32(n)])
    a, b, c, d = (x.reshape(n, 4)[:, k].astype(np.uint64) for k in range(4))
    m = np.uint64(0xFFFFFFFF)
    want = np.stack([(a + d) & m, ((b << np.uint64(8)) | (c & np.uint64(0xFFFF))) & m, c,
                     (a + a * c + b * d) & m], axis=1).astype(np.uint32)
    np.testing.assert_array_equal(out.reshape(n, 4), want)
