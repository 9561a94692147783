"""The mma.sync and ldmatrix layout objects predict what an H200 wrote
(tests/kernels/data/lane_maps_h200.json, made by tools/hw/lane_maps.cu; see that file for the
experiments)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ptxld.wmma import matrix as M

DATA = json.loads((Path(__file__).resolve().parents[1] / "kernels" / "data" / "lane_maps_h200.json").read_text())


def _values(lay, codes):
    """The matrix a fragment holds when element e (lane-major, low half first) is codes[e]."""
    per_lane = lay.nregs * lay.slots
    vals = np.asarray(codes, np.float64).reshape(32, lay.nregs, lay.slots)
    assert vals.size == 32 * per_lane
    return lay.scatter(vals)


@pytest.mark.parametrize("key,types", [
    ("mma_m16n8k16_f32_f16", ("m16n8k16", "f16", "f16", "f32", "f32")),
    ("mma_m16n8k16_f32_bf16", ("m16n8k16", "bf16", "bf16", "f32", "f32")),
    ("mma_m16n8k8_f32_tf32", ("m16n8k8", "tf32", "tf32", "f32", "f32")),
    ("mma_m8n8k4_f64", ("m8n8k4", "f64", "f64", "f64", "f64")),
])
def test_one_hot_mma_experiments(key, types):
    lays = M.mma_layouts(*types)
    na = 32 * lays["a"].nregs * lays["a"].slots
    nb = 32 * lays["b"].nregs * lays["b"].slots
    d = lays["d"]
    per_d = d.nregs * d.slots
    width = 2 if key.endswith("f64") else 4               # values written per lane
    got = np.asarray(DATA[key], np.float64)
    for e in range(na + nb):
        if e < na:
            a = np.zeros(na)
            a[e] = 1
            b = np.arange(1, nb + 1)
        else:
            a = np.arange(1, na + 1)
            b = np.zeros(nb)
            b[e - na] = 1
        want = d.gather(_values(lays["a"], a) @ _values(lays["b"], b)).reshape(32, per_d)
        row = got[e * 32 * width:(e + 1) * 32 * width].reshape(32, width)[:, :per_d]
        np.testing.assert_array_equal(row, want, err_msg=f"{key} experiment {e}")


def test_ldmatrix_lane_maps():
    got = np.asarray(DATA["ldmatrix_x1_x2_x4_x4trans"], np.uint64).reshape(4, 32, 4)
    # shared memory: four 8x8 matrices holding their own index, lane l names row l % 8 of matrix l / 8
    mats = np.arange(256, dtype=np.uint64).reshape(32, 8)
    for v, (count, trans) in enumerate([(1, False), (2, False), (4, False), (4, True)]):
        lay = M.ldmatrix_layout(count, trans)
        want = M.pack(lay.gather(mats[:8 * count]), lay.frag)
        np.testing.assert_array_equal(got[v, :, :count], want)


# ---- mma.sp metadata (tools/hw/sparse_maps.cu; two records: selectors 0-3 of m16n8k16 .f16
# through the driver's JIT, then two metadata patterns for every form) -------------------------

from ptxld.spec import mma as spec  # noqa: E402

SPARSE = {}
for _name in ("sparse_maps_h200.json", "sparse_maps_h200_b.json"):
    _rec = json.loads((Path(__file__).resolve().parents[1] / "kernels" / "data" / _name).read_text())
    SPARSE.update({k: v for k, v in _rec.items() if k != "status"})


def _sparse_prediction(shape, atype, selector, meta):
    """D per experiment (one-hot compressed A element, B[k][n] = k + 1) under the model."""
    dtype = "f32" if atype == "f16" else "s32"
    kind = spec.sparse_kind(shape, atype, atype, dtype, dtype)
    m, n, k = spec.shape_mnk(shape)
    kc = spec.shape_mnk(kind.compressed)[2]
    comp = M.layout_of("a", spec.operand_a(m, kc, atype))
    dlay = M.layout_of("d", spec.accumulator(m, n, dtype))
    per_lane = comp.nregs * comp.slots
    out = []
    for e in range(32 * per_lane):
        codes = np.zeros(32 * per_lane)
        codes[e] = 1
        a_c = comp.scatter(codes.reshape(32, comp.nregs, comp.slots))
        dense = np.zeros((m, k))
        for r in range(m):
            for g in range(k // 4):
                t, nib = spec.sparse_metadata_position(kind, atype, selector, r, g)
                bits = (int(meta[4 * (r % 8) + t]) >> (4 * nib)) & 0xF
                dense[r, 4 * g + (bits & 3)] = a_c[r, 2 * g]
                dense[r, 4 * g + (bits >> 2)] = a_c[r, 2 * g + 1]
        d = dense @ np.repeat(np.arange(1, k + 1)[:, None], n, axis=1)
        out.append(dlay.gather(d).reshape(32, -1))
    return np.stack(out)


@pytest.mark.parametrize("key", sorted(k for k in SPARSE if not k.endswith("_meta")))
def test_sparse_metadata_model_predicts_the_hardware(key):
    shape, atype, sel = key.split("_")[:3]
    got = np.asarray(SPARSE[key], np.float64).reshape(-1, 32, 4)
    want = _sparse_prediction(shape, atype, int(sel[3:]), SPARSE[key + "_meta"])
    np.testing.assert_array_equal(got, want)
