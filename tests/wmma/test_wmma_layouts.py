"""Layout objects against the real-hardware mappings quoted in spec/wmma.md §6 (formulas
transcribed here, evaluated per lane in plain Python), plus structural properties of every
layout object."""
import numpy as np
import pytest

from ptxld.spec import wmma as spec
from ptxld.wmma import WmmaError, all_layouts, fragment_layout, target_family

LANES = range(32)


def g_t(lane):
    return lane >> 2, lane & 3


def bit(lane, k):
    return (lane >> k) & 1


def element_x(lay, lane, x):
    """(row, col) of fragment element x of a lane: 16-bit types register x//2, half x%2."""
    per = lay.slots
    return lay.element(lane, x // per, x % per)


# ---- spec/wmma.md §6a: sm_75 and sm_80+, m16n16k16 .f16 (wmmae foreach_ij) -------------------
def hw_a(lane, x):
    g, t = g_t(lane)
    x &= 7  # x and x+8 are identical copies
    return g + 8 * ((x >> 1) & 1), 2 * t + (x & 1) + 8 * ((x >> 2) & 1)


def hw_b(lane, x):
    g, t = g_t(lane)
    x &= 7
    return 2 * t + (x & 1) + 8 * ((x >> 1) & 1), g + 8 * ((x >> 2) & 1)


def hw_c(lane, x):
    g, t = g_t(lane)
    return g + 8 * ((x >> 1) & 1), 2 * t + (x & 1) + 8 * ((x >> 2) & 1)


def hw_tf32_a(lane, x):
    g, t = g_t(lane)
    return g + 8 * (x & 1), t + 4 * (x >> 1)


def hw_tf32_b(lane, x):
    g, t = g_t(lane)
    return t + 4 * (x & 1), g + 8 * (x >> 1)


HW_CASES = [
    ("m16n16k16", "a", "f16", 16, hw_a),
    ("m16n16k16", "b", "f16", 16, hw_b),
    ("m16n16k16", "c", "f32", 8, hw_c),
    ("m16n16k16", "c", "f16", 8, hw_c),
    ("m16n16k16", "d", "f32", 8, hw_c),
    ("m16n16k16", "d", "f16", 8, hw_c),
    ("m16n16k8", "a", "tf32", 4, hw_tf32_a),
    ("m16n16k8", "b", "tf32", 4, hw_tf32_b),
]


@pytest.mark.parametrize("target", ["sm_80", "sm_86", "sm_90a", "sm_100", "sm_75"])
@pytest.mark.parametrize("shape,matrix,type_,nx,formula", HW_CASES)
@pytest.mark.parametrize("layout", ["row", "col"])
def test_sm80_hardware_mappings(target, shape, matrix, type_, nx, formula, layout):
    if target == "sm_75" and type_ == "tf32":
        pytest.skip("tf32 needs sm_80")
    lay = fragment_layout(target, shape, matrix, type_, layout)
    assert lay.basis == "hardware"
    assert "wmmae" in lay.provenance
    for lane in LANES:
        for x in range(nx):
            assert element_x(lay, lane, x) == formula(lane, x), (lane, x)


# ---- spec/wmma.md §6b: sm_70/sm_72 m16n16k16 .f16 table (wmmae variant for B) ----------------
def volta_a_row(lane, x):
    return (lane & 3) + 8 * bit(lane, 2) + 4 * bit(lane, 4), x


def volta_a_col(lane, x):
    return 8 * bit(lane, 2) + 4 * bit(lane, 4) + (x & 3), (lane & 3) + 4 * (x >> 2)


def volta_b_row(lane, x):
    return (lane & 3) + 4 * (x >> 2), 8 * bit(lane, 3) + 4 * bit(lane, 4) + (x & 3)


def volta_b_col(lane, x):
    return x, (lane & 3) + 8 * bit(lane, 3) + 4 * bit(lane, 4)


def volta_c_f16(lane, x):
    return (lane & 3) + 8 * bit(lane, 2) + 4 * bit(lane, 4), 8 * bit(lane, 3) + x


def volta_c_f32(lane, x):
    row = (lane & 1) + 2 * ((x >> 1) & 1) + 8 * bit(lane, 2) + 4 * bit(lane, 4)
    col = 2 * bit(lane, 1) + (x & 1) + 4 * (x >> 2) + 8 * bit(lane, 3)
    return row, col


VOLTA_CASES = [
    ("a", "f16", "row", 16, volta_a_row), ("a", "f16", "col", 16, volta_a_col),
    ("b", "f16", "row", 16, volta_b_row), ("b", "f16", "col", 16, volta_b_col),
    ("c", "f16", "row", 8, volta_c_f16), ("c", "f16", "col", 8, volta_c_f16),
    ("c", "f32", "row", 8, volta_c_f32), ("d", "f32", "col", 8, volta_c_f32),
]


@pytest.mark.parametrize("target", ["sm_70", "sm_72"])
@pytest.mark.parametrize("matrix,type_,layout,nx,formula", VOLTA_CASES)
def test_sm70_reported_mappings(target, matrix, type_, layout, nx, formula):
    lay = fragment_layout(target, "m16n16k16", matrix, type_, layout)
    assert lay.basis == "reported"
    for lane in LANES:
        for x in range(nx):
            assert element_x(lay, lane, x) == formula(lane, x), (lane, x)


def test_volta_replication_pairs():
    # §6b: A .row — lanes L and L^8 hold the same row; B .row — lanes L and L^4 identical.
    a = fragment_layout("sm_70", "m16n16k16", "a", "f16", "row")
    b = fragment_layout("sm_70", "m16n16k16", "b", "f16", "row")
    for lane in LANES:
        assert (a.rows[lane] == a.rows[lane ^ 8]).all() and (a.cols[lane] == a.cols[lane ^ 8]).all()
        assert (b.rows[lane] == b.rows[lane ^ 4]).all() and (b.cols[lane] == b.cols[lane ^ 4]).all()


# ---- every layout object ---------------------------------------------------------------------
LAYOUTS = all_layouts()


@pytest.mark.parametrize("lay", LAYOUTS, ids=lambda l: l.name.replace(" ", ""))
def test_every_element_held_replication_times(lay):
    rows, cols = lay.dims
    fs = spec.fragment(lay.shape, lay.matrix, lay.type)
    assert lay.rows.shape == (32, fs.nregs, fs.elements_per_register)
    held = {}
    for lane in LANES:
        for reg in range(lay.nregs):
            for slot in range(lay.slots):
                r, c = lay.element(lane, reg, slot)
                assert 0 <= r < rows and 0 <= c < cols
                held[(r, c)] = held.get((r, c), 0) + 1
    assert len(held) == rows * cols
    assert set(held.values()) == {fs.replication}
    # owner/holders agree with the forward map
    lane, reg, slot = lay.owner
    for (r, c) in list(held)[:: max(1, len(held) // 64)]:
        h = lay.holders(r, c)
        assert len(h) == fs.replication
        assert (int(lane[r, c]), int(reg[r, c]), int(slot[r, c])) in h


@pytest.mark.parametrize("lay", LAYOUTS, ids=lambda l: l.name.replace(" ", ""))
def test_gather_scatter_roundtrip(lay):
    m = np.arange(lay.dims[0] * lay.dims[1]).reshape(lay.dims)
    assert (lay.scatter(lay.gather(m)) == m).all()


@pytest.mark.parametrize("lay", LAYOUTS, ids=lambda l: l.name.replace(" ", ""))
def test_provenance_is_labelled(lay):
    assert lay.basis in ("hardware", "reported", "ptxld choice")
    assert lay.provenance
    if lay.basis == "hardware":
        assert lay.family in ("sm_75", "sm_80")
    if lay.matrix in "cd":  # accumulator mappings never depend on the memory layout
        other = fragment_layout(lay.family, lay.shape, lay.matrix, lay.type,
                                "col" if lay.layout == "row" else "row")
        assert (other.rows == lay.rows).all() and (other.cols == lay.cols).all()


def test_unknown_mappings_are_labelled_choice():
    assert fragment_layout("sm_80", "m8n32k16", "a", "f16", "row").basis == "ptxld choice"
    assert fragment_layout("sm_80", "m16n16k16", "a", "bf16", "row").basis == "ptxld choice"
    assert fragment_layout("sm_70", "m32n8k16", "c", "f32", "row").basis == "ptxld choice"


def test_target_families_and_errors():
    assert target_family("sm_72") == "sm_70"
    assert target_family("sm_89") == "sm_80"
    assert target_family("sm_120a") == "sm_80"
    with pytest.raises(WmmaError, match="sm_70 or later"):
        target_family("sm_61")
    with pytest.raises(WmmaError, match="needs sm_80"):
        fragment_layout("sm_75", "m16n16k16", "a", "bf16", "row")
    with pytest.raises(WmmaError, match="cannot be .col"):
        fragment_layout("sm_80", "m8n8k32", "a", "s4", "col")


def test_arrays_are_read_only():
    lay = fragment_layout("sm_80", "m16n16k16", "a", "f16", "row")
    with pytest.raises(ValueError):
        lay.rows[0, 0, 0] = 3
