"""The sm_100 tensor-copy modes `.tile::gather4` / `.tile::scatter4` and interleaved tensor maps.

References: NumPy fancy indexing and slicing of the tensor (the ISA: gather4 combines four rows
of a 2-D tensor, named by their row coordinates, into one box; an interleaved NC/8HWC8 tensor
keeps 8 channels of 2 bytes, 16 bytes, innermost), and ptxas 13.0, which assembles every module
for the targets the modes need."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import ptxld
from ptxld import emu

from test_async import line_of, ptxas_accepts
from test_kernels import _launch_args
from tma_kernel import copy_box_and_store

ROOT = Path(__file__).resolve().parents[2]


def load_kernel(copy: str, nbytes: int, version="8.6", arch="sm_100a") -> str:
    """Loads one box through the map parameter with `copy` ([MAP] the map, [DST] the buffer,
    [BAR] the barrier) and stores the buffer's `nbytes` to `p`."""
    copy = copy.replace("[MAP", "[%rd1").replace("[DST]", "[%r2]").replace("[BAR]", "[%r1]")
    return f""".version {version}
.target {arch}
.address_size 64

.visible .entry k(.param .align 128 .b8 tmap[128], .param .u64 p, .param .u64 t)
{{
.reg .pred %p<2>;
.reg .b32 %r<8>;
.reg .b64 %rd<10>;
.shared .align 8 .b64 bar;
.shared .align 1024 .b8 buf[{nbytes}];
ld.param.u64 %rd9, [p];
mov.u64 %rd1, tmap;
cvta.param.u64 %rd1, %rd1;
{copy_box_and_store(copy, nbytes)}
}}
"""


def aligned(x: np.ndarray, to: int = 256) -> np.ndarray:
    """A copy of `x` whose data starts on a `to`-byte boundary (NumPy aligns to 16 bytes)."""
    raw = np.zeros(x.nbytes + to, np.uint8)
    skip = -raw.__array_interface__["data"][0] % to
    out = raw[skip:skip + x.nbytes].view(x.dtype).reshape(x.shape)
    out[...] = x
    return out


GATHER = ("cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes "
          "[DST], [MAP, {{{c}}}], [BAR]")


@pytest.fixture
def t():
    return (np.arange(40 * 48, dtype=np.uint32).reshape(40, 48) * 5 + 1)


@pytest.mark.parametrize("col,rows", [(8, (3, 17, 0, 39)), (40, (5, 41, -1, 2))])
def test_gather4_combines_four_rows(t, tmp_path, col, rows):
    """Rows in any order; a row past the tensor, and columns past its edge, read zeros."""
    src = load_kernel(GATHER.format(c=", ".join(map(str, (col, *rows)))), 4 * 16 * 4)
    ptxas_accepts(src, tmp_path, arch="sm_100a")
    out = np.zeros(4 * 16, np.uint32)
    ptxld.RawModule(code=src).get_function("k")(1, 1, [ptxld.TensorMap.tiled(t, box=(16, 1)), out, t])
    padded = np.zeros((42, 64), np.uint32)
    padded[:40, :48] = t
    want = np.stack([padded[r, col:col + 16] if 0 <= r < 40 else np.zeros(16, np.uint32) for r in rows])
    assert np.array_equal(out.reshape(4, 16), want)


def test_gather4_through_the_128b_swizzle(t, tmp_path):
    src = load_kernel(GATHER.format(c="0, 9, 1, 30, 4"), 4 * 128)
    out = np.zeros(4 * 32, np.uint32)
    tm = ptxld.TensorMap.tiled(t.astype(np.uint32)[:, :32].copy(), box=(32, 1), swizzle="128B")
    u = tm.array
    ptxld.RawModule(code=src).get_function("k")(1, 1, [tm, out, u])
    dense = u[[9, 1, 30, 4]].view(np.uint8).ravel()
    i = np.arange(512)
    want = np.empty(512, np.uint8)
    want[i ^ (((i >> 7) & 7) << 4)] = dense          # 16-byte chunk XOR the 128-byte row
    assert np.array_equal(out.view(np.uint8), want)


def test_scatter4_stores_four_rows(t, tmp_path):
    """Shared memory filled with 1000, 1001, ...: the box of four rows is written to the rows
    its coordinates name (columns 4..19); row -1 is outside the tensor and skipped."""
    src = """.version 8.6
.target sm_100a
.address_size 64

.visible .entry k(.param .align 128 .b8 tmap[128], .param .u64 t)
{
.reg .b32 %r<8>;
.reg .b64 %rd<4>;
.reg .pred %p<2>;
.shared .align 1024 .b8 buf[256];
mov.u64 %rd1, tmap;
cvta.param.u64 %rd1, %rd1;
mov.u32 %r2, buf;
mov.u32 %r3, 0;
FILL:
shl.b32 %r4, %r3, 2;
add.s32 %r5, %r2, %r4;
add.s32 %r6, %r3, 1000;
st.shared.u32 [%r5], %r6;
add.s32 %r3, %r3, 1;
setp.lt.u32 %p1, %r3, 64;
@%p1 bra FILL;
fence.proxy.async.shared::cta;
cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group [%rd1, {4, 7, -1, 0, 33}], [%r2];
cp.async.bulk.commit_group;
cp.async.bulk.wait_group 0;
ret;
}
"""
    ptxas_accepts(src, tmp_path, arch="sm_100a")
    before = t.copy()
    ptxld.RawModule(code=src).get_function("k")(1, 1, [ptxld.TensorMap.tiled(t, box=(16, 1)), t])
    box = (np.arange(64, dtype=np.uint32) + 1000).reshape(4, 16)
    want = before.copy()
    for k, r in enumerate((7, -1, 0, 33)):
        if r >= 0:
            want[r, 4:20] = box[k]
    assert np.array_equal(t, want)


def test_gather4_needs_a_2d_copy(tmp_path):
    src = load_kernel("cp.async.bulk.tensor.3d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes "
                      "[DST], [MAP, {0, 0, 0}], [BAR]", 256)
    k = ptxld.RawModule(code=src).get_function("k")
    x = np.zeros((4, 4, 64), np.uint32)
    with pytest.raises(emu.EmulationError, match="rows of a 2-D tensor") as e:
        k(1, 1, [ptxld.TensorMap.tiled(x, box=(64, 1, 1)), np.zeros(64, np.uint32), x])
    assert e.value.line == line_of(src, "gather4")


def test_wide_im2col_is_refused_by_name(tmp_path):
    src = load_kernel("cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes "
                      "[DST], [MAP, {0, 0, 0}], [BAR], {%rs1, %rs1}", 256).replace(
                          ".reg .pred", ".reg .b16 %rs<2>;\n.reg .pred")
    ptxas_accepts(src, tmp_path, arch="sm_100a")
    k = ptxld.RawModule(code=src).get_function("k")
    x = np.zeros((2, 8, 16), np.float32)
    tm = ptxld.TensorMap.im2col(x, pixel_box_lower=(0,), pixel_box_upper=(0,), channels_per_pixel=16,
                                pixels_per_column=4)
    with pytest.raises(emu.EmulationError, match="im2col::w mode .sm_100. is not executed") as e:
        k(1, 1, [tm, np.zeros(64, np.uint32), x])
    assert e.value.line == line_of(src, "im2col::w")


# ---- interleaved layouts ----------------------------------------------------------------------

TILE5 = ("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
         "[DST], [MAP, {{{c}}}], [BAR]")


@pytest.mark.parametrize("interleave,swizzle,dtype,slice_", [
    ("16B", "none", np.float16, 8),       # NC/8HWC8: 8 half channels, 16 bytes
    ("16B", "64B", np.float16, 8),
    ("32B", "32B", np.float32, 8),        # NC/8HWC8 of 4-byte channels: 32 bytes
])
def test_interleaved_tensor_loads_its_slices(tmp_path, interleave, swizzle, dtype, slice_):
    """An (N, C/slice, H, W, slice) tensor as a rank-5 interleaved map: a box of 4 x 2 pixels of
    one channel slice lands slice by slice, W fastest (in the map's swizzle)."""
    r = np.random.default_rng(3)
    x = aligned(r.integers(0, 1000, (2, 3, 6, 8, slice_)).astype(dtype))
    nbytes = 4 * 2 * slice_ * x.itemsize
    src = load_kernel(TILE5.format(c="0, 3, 2, 1, 1"), nbytes, version="8.0", arch="sm_90")
    ptxas_accepts(src, tmp_path, arch="sm_90")
    out = np.zeros(nbytes, np.uint8)
    tm = ptxld.TensorMap.tiled(x, box=(slice_, 4, 2, 1, 1), interleave=interleave, swizzle=swizzle)
    ptxld.RawModule(code=src).get_function("k")(1, 1, [tm, out, x])
    dense = x[1, 1, 2:4, 3:7, :].copy().view(np.uint8).ravel()
    i = np.arange(nbytes)
    span = {"none": 0, "32B": 32, "64B": 64}[swizzle]
    row_bits = (span // 16) - 1 if span else 0
    want = np.empty_like(dense)
    want[i ^ (((i >> 7) & row_bits) << 4)] = dense
    assert np.array_equal(out, want)


def test_interleave_lifts_the_16_byte_box_rule():
    """cuTensorMapEncodeTiled: the 16-byte multiple applies to boxDim[0] without interleave only."""
    x = aligned(np.zeros((2, 2, 4, 4, 8), np.uint16))        # slices of 8 channels, 16 bytes
    with pytest.raises(emu.TensorMapError, match="multiple of 16"):
        ptxld.TensorMap.tiled(x, box=(4, 4, 1, 1, 1))            # 4 channels: 8 bytes
    ptxld.TensorMap.tiled(x, box=(4, 4, 1, 1, 1), interleave="16B")


def test_interleave_32b_aligns_to_32_bytes():
    x = aligned(np.zeros((2, 2, 4, 4, 8), np.float32))
    with pytest.raises(emu.TensorMapError, match="aligned to 32 bytes"):
        ptxld.TensorMap.tiled(_shifted(x), box=(8, 4, 1, 1, 1), interleave="32B", swizzle="32B")


def _shifted(x):
    """The same shape starting 16 bytes into a 32-byte aligned buffer."""
    flat = aligned(np.zeros(x.size + 8, x.dtype))
    return flat[4:4 + x.size].reshape(x.shape)


TILE3 = ("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
         "[DST], [MAP, {{{c}}}], [BAR]")


@pytest.mark.parametrize("interleave", ["none", "16B"])
def test_the_first_traversal_stride_applies_to_interleaved_maps_only(tmp_path, interleave):
    """cuTensorMapEncodeTiled: without interleave elementStrides[0] is ignored (box[0] elements
    in a row); with it, dimension 0 is walked every second element too."""
    x = aligned(np.arange(2 * 4 * 8, dtype=np.uint16).reshape(2, 4, 8))   # slices of 8 x 2 bytes
    step = 2 if interleave != "none" else 1
    nbytes = 2 * (8 // step) * 2
    src = load_kernel(TILE3.format(c="0, 1, 1"), max(nbytes, 16), version="8.0", arch="sm_90")
    ptxas_accepts(src, tmp_path, arch="sm_90")
    out = np.zeros(max(nbytes, 16), np.uint8)
    tm = ptxld.TensorMap.tiled(x, box=(8, 2, 1), element_strides=(2, 1, 1), interleave=interleave)
    ptxld.RawModule(code=src).get_function("k")(1, 1, [tm, out, x])
    assert np.array_equal(out[:nbytes].view(np.uint16), x[1, 1:3, ::step].ravel())


# ---- the hardware probe's variants -----------------------------------------------------------

@pytest.mark.parametrize("keep", ["1d", "5d"])
def test_the_probe_variants_of_async_tma_rank15_are_sound(tmp_path, keep):
    """tools/hw/tma_probe.py runs async_tma_rank15 with one copy removed: the patched PTX must
    assemble, and compute the kept box (the case's NumPy reference for it) with the other left
    zero, or a hardware verdict on it would mean nothing."""
    spec = importlib.util.spec_from_file_location("tma_probe", ROOT / "tools" / "hw" / "tma_probe.py")
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    case = probe.R15
    src = probe.rank15_only((probe.KERNELS / case.ptx[0]).read_text(), keep)
    ptxas_accepts(src, tmp_path, arch="sm_90")
    args = case.make_args()
    want = case.reference(args)[0].reshape(-1, 96)
    ptxld.RawModule(code=src).get_function(case.entry)(case.grid, case.block, _launch_args(args))
    got = args[5].reshape(-1, 96)
    kept = slice(0, 32) if keep == "1d" else slice(32, 96)
    assert np.array_equal(got[:, kept], want[:, kept])
    assert not got[:, slice(32, 96) if keep == "1d" else slice(0, 32)].any()
