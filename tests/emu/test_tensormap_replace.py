"""tensormap.replace: every field the PTX ISA defines, edited in a tensor map in global memory,
then used by a tensor load; and the map's validity checked when the copy reads it.

References: NumPy slices of the tensor (what the edited map describes, as cuTensorMapEncodeTiled
would describe it), the swizzle patterns written out from the ISA's description (16-byte chunks
XOR the 128-byte row; on sm_100 32-/64-byte chunks, and the 8-byte flip of odd rows), the ISA's
table of valid new values and ptxas 13.0 (every module assembles)."""
from __future__ import annotations

import numpy as np
import pytest

import ptxld
from ptxld import emu
from ptxld.spec import tensormap as map_spec

from test_async import line_of, ptxas_accepts
from tma_kernel import copy_box_and_store


def replace_kernel(edits: list[str], coords: tuple, nbytes: int, dim: int = 2,
                   version: str = "8.3", arch: str = "sm_90a") -> str:
    """A kernel that applies `edits` (tensormap.replace lines, `[M]` the map) to the map in
    global memory at `m`, loads one box of `nbytes` bytes at `coords` and stores it to `p`."""
    lines = "\n".join(e.replace("[M]", "[%rd2]") for e in edits)
    cs = ", ".join(str(c) for c in coords)
    copy = (f"cp.async.bulk.tensor.{dim}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
            f"[%r2], [%rd1, {{{cs}}}], [%r1]")
    return f""".version {version}
.target {arch}
.address_size 64

.visible .entry k(.param .u64 p, .param .u64 m, .param .u64 t)
{{
.reg .pred %p<2>;
.reg .b32 %r<8>;
.reg .b64 %rd<8>;
.shared .align 8 .b64 bar;
.shared .align 1024 .b8 buf[{max(nbytes, 16)}];
ld.param.u64 %rd9, [p];
ld.param.u64 %rd1, [m];
cvta.to.global.u64 %rd2, %rd1;
{lines}
fence.proxy.tensormap::generic.release.gpu;
fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;
{copy_box_and_store(copy, nbytes)}
}}
""".replace("%rd<8>", "%rd<10>")


def run(src, tensor, tmap, nbytes, tmp_path, arch="sm_90a"):
    ptxas_accepts(src, tmp_path, arch=arch)
    raw = np.frombuffer(bytes(tmap), np.uint8).copy()
    out = np.zeros(nbytes, np.uint8)
    ptxld.RawModule(code=src).get_function("k")(1, 1, [out, raw, tensor])
    return out, raw


def R(field, *args, type_=".b32"):
    return f"tensormap.replace.tile.{field}.global.b1024{type_} [M], {', '.join(map(str, args))};"


@pytest.fixture
def t():
    return np.arange(32 * 64, dtype=np.uint32).reshape(32, 64) * 7 + 3


def test_box_dim(t, tmp_path):
    src = replace_kernel([R("box_dim", 0, 16), R("box_dim", 1, 4)], (8, 5), 256)
    out, _ = run(src, t, ptxld.TensorMap.tiled(t, box=(4, 2)), 256, tmp_path)
    assert np.array_equal(out.view(np.uint32).reshape(4, 16), t[5:9, 8:24])


def test_global_dim_and_stride_make_a_strided_view(t, tmp_path):
    """Rows twice as far apart and half as many: the map now describes t[::2]; a box past the
    new last row reads zeros."""
    src = replace_kernel([R("global_stride", 0, 2 * 64 * 4, type_=".b64"), R("global_dim", 1, 16)],
                         (0, 14), 4 * 16 * 4)
    out, _ = run(src, t, ptxld.TensorMap.tiled(t, box=(16, 4)), 256, tmp_path)
    got = out.view(np.uint32).reshape(4, 16)
    assert np.array_equal(got[:2], t[::2][14:16, :16])
    assert (got[2:] == 0).all()


def test_element_stride(t, tmp_path):
    """A traversal stride of 2 in dimension 1 loads ceil(4 / 2) rows, two apart."""
    src = replace_kernel([R("element_stride", 1, 2)], (0, 3), 2 * 16 * 4)
    out, _ = run(src, t, ptxld.TensorMap.tiled(t, box=(16, 4)), 128, tmp_path)
    assert np.array_equal(out.view(np.uint32).reshape(2, 16), t[3:7:2, :16])


def test_rank_takes_the_rank_minus_one(t, tmp_path):
    """A rank-3 map over (1, 32, 64) made rank 2 serves a .2d copy (new_val = rank - 1)."""
    src = replace_kernel([R("rank", 1)], (16, 2), 2 * 16 * 4)
    out, _ = run(src, t, ptxld.TensorMap.tiled(t.reshape(1, 32, 64), box=(16, 2, 1)), 128, tmp_path)
    assert np.array_equal(out.view(np.uint32).reshape(2, 16), t[2:4, 16:32])


def test_elemtype_reinterprets_the_elements(t, tmp_path):
    """The same bytes as 16-bit elements: twice the inner dimension and box (code 1 is .u16)."""
    src = replace_kernel([R("elemtype", map_spec.ELEMTYPES.index(map_spec.ElemType(".u16", 2))),
                          R("global_dim", 0, 128), R("box_dim", 0, 16)], (8, 1), 2 * 16 * 2)
    out, _ = run(src, t, ptxld.TensorMap.tiled(t, box=(8, 2)), 64, tmp_path)
    assert np.array_equal(out.view(np.uint16).reshape(2, 16), t.view(np.uint16)[1:3, 8:24])


def test_fill_mode_nan_after_elemtype_float(t, tmp_path):
    """An integer map made .f32 (code 7) with the NaN fill (code 1): the rows past the tensor read
    the canonical NaN."""
    src = replace_kernel([R("elemtype", 7), R("fill_mode", 1)], (0, 31), 2 * 16 * 4)
    out, _ = run(src, t, ptxld.TensorMap.tiled(t, box=(16, 2)), 128, tmp_path)
    got = out.view(np.uint32).reshape(2, 16)
    assert np.array_equal(got[0], t[31, :16]) and (got[1] == 0x7FFFFFFF).all()


def _isa_swizzle(n: int, atomicity: str = "16B") -> np.ndarray:
    """Where byte i of a dense 128B-swizzled box lands: the unit (16, 32 or 64 bytes) index XOR the
    128-byte row number (mod the units in a row); the 8-byte flip swaps the halves of every 16
    bytes on odd rows."""
    i = np.arange(n)
    row = i >> 7
    unit = {"16B": 16, "32B": 32, "32B_flip_8B": 32, "64B": 64}[atomicity]
    units = 128 // unit
    out = i ^ ((row % units) * unit)
    if atomicity == "32B_flip_8B":
        out ^= (row & 1) * 8
    return out


def test_swizzle_mode(t, tmp_path):
    src = replace_kernel([R("swizzle_mode", 3)], (32, 4), 8 * 128)
    out, _ = run(src, t, ptxld.TensorMap.tiled(t, box=(32, 8)), 1024, tmp_path)
    dense = t[4:12, 32:64].copy().view(np.uint8).ravel()
    want = np.empty_like(dense)
    want[_isa_swizzle(1024)] = dense
    assert np.array_equal(out, want)


@pytest.mark.parametrize("code", [1, 2, 3])
def test_swizzle_atomicity(t, tmp_path, code):
    """sm_100a (PTX ISA 8.6): the 128-byte span permuting 32-byte units, with the 8-byte flip,
    or 64-byte units."""
    src = replace_kernel([R("swizzle_mode", 3), R("swizzle_atomicity", code)], (0, 8), 8 * 128,
                         version="8.6", arch="sm_100a")
    out, _ = run(src, t, ptxld.TensorMap.tiled(t, box=(32, 8)), 1024, tmp_path, arch="sm_100a")
    dense = t[8:16, 0:32].copy().view(np.uint8).ravel()
    want = np.empty_like(dense)
    want[_isa_swizzle(1024, map_spec.SWIZZLE_ATOMICITIES[code])] = dense
    assert np.array_equal(out, want)


def test_swizzle_atomicity_through_the_encode_call(t, tmp_path):
    """cuTensorMapEncodeTiled's CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B is the same map."""
    src = replace_kernel([], (0, 8), 8 * 128, version="8.6", arch="sm_100a")
    out, _ = run(src, t, ptxld.TensorMap.tiled(t, box=(32, 8), swizzle="128B_atom_64B"), 1024,
                 tmp_path, arch="sm_100a")
    want = np.empty(1024, np.uint8)
    want[_isa_swizzle(1024, "64B")] = t[8:16, 0:32].copy().view(np.uint8).ravel()
    assert np.array_equal(out, want)


def test_every_field_of_the_isa_is_executed():
    """The spec's field list is the ISA's syntax's (its .field1, .field2, .field3 sets)."""
    assert set(map_spec.FIELDS) == {
        ".global_address", ".rank", ".box_dim", ".global_dim", ".global_stride", ".element_stride",
        ".elemtype", ".interleave_layout", ".swizzle_mode", ".swizzle_atomicity", ".fill_mode"}


# ---- validity -------------------------------------------------------------------------------

@pytest.mark.parametrize("edit,why", [
    (R("box_dim", 0, 300), r"box_dim: new value 300 is outside the valid values \(1\.\.256\)"),
    (R("element_stride", 1, 9), r"element_stride: new value 9 is outside the valid values \(1\.\.8\)"),
    (R("global_stride", 0, 264, type_=".b64"), "multiple of 16"),
])
def test_a_new_value_outside_the_isa_table_faults_at_the_replace(t, tmp_path, edit, why):
    src = replace_kernel([edit], (0, 0), 128)
    ptxas_accepts(src, tmp_path, arch="sm_90a")
    k = ptxld.RawModule(code=src).get_function("k")
    raw = np.frombuffer(bytes(ptxld.TensorMap.tiled(t, box=(16, 2))), np.uint8).copy()
    with pytest.raises(emu.AsyncCopyError, match=why) as e:
        k(1, 1, [np.zeros(128, np.uint8), raw, t])
    assert e.value.line == line_of(src, "tensormap.replace")


def test_rank_from_a_register_beyond_five_faults(t, tmp_path):
    src = replace_kernel(["mov.u32 %r5, 5;", "tensormap.replace.tile.rank.global.b1024.b32 [M], %r5;"],
                         (0, 0), 128)
    ptxas_accepts(src, tmp_path, arch="sm_90a")
    raw = np.frombuffer(bytes(ptxld.TensorMap.tiled(t, box=(16, 2))), np.uint8).copy()
    with pytest.raises(emu.AsyncCopyError, match=r"rank: new value 5 is outside the valid values \(0\.\.4\)"):
        ptxld.RawModule(code=src).get_function("k")(1, 1, [np.zeros(128, np.uint8), raw, t])


@pytest.mark.parametrize("edits,why", [
    # a 3 x 4-byte inner box: cuTensorMapEncodeTiled's 16-byte rule
    ([R("box_dim", 0, 3)], "boxDim\\[0\\] \\* element size = 12 bytes must be a multiple of 16"),
    # 64 x 4 bytes in a 128-byte swizzle span
    ([R("box_dim", 0, 64), R("swizzle_mode", 3)], "exceeds the 128B swizzle span"),
    ([R("interleave_layout", 2)], "an interleaved layout needs rank 3"),
    ([R("elemtype", 2), R("fill_mode", 1)], "oob_fill 'nan' needs a floating-point data type"),
    ([R("global_dim", 1, 0)], None),          # faults at the replace: dims start at 1
])
def test_an_invalid_map_faults_at_the_copy(t, tmp_path, edits, why):
    src = replace_kernel(edits, (0, 0), 128)
    ptxas_accepts(src, tmp_path, arch="sm_90a")
    k = ptxld.RawModule(code=src).get_function("k")
    raw = np.frombuffer(bytes(ptxld.TensorMap.tiled(t, box=(16, 2))), np.uint8).copy()
    with pytest.raises(emu.AsyncCopyError, match=why or "global_dim: new value 0") as e:
        k(1, 1, [np.zeros(128, np.uint8), raw, t])
    where = "tensormap.replace" if why is None else "cp.async.bulk.tensor"
    assert e.value.line == line_of(src, where)
    if why is not None:
        assert "the tensor map is invalid" in str(e.value)


def test_interleave_32b_needs_the_32b_swizzle(tmp_path):
    x = np.zeros((4, 8, 8), np.uint32)
    src = replace_kernel([R("interleave_layout", 2)], (0, 0, 0), 128, dim=3)
    ptxas_accepts(src, tmp_path, arch="sm_90a")
    raw = np.frombuffer(bytes(ptxld.TensorMap.tiled(x, box=(8, 4, 1))), np.uint8).copy()
    with pytest.raises(emu.AsyncCopyError, match="interleave 32B requires the 32B swizzle"):
        ptxld.RawModule(code=src).get_function("k")(1, 1, [np.zeros(128, np.uint8), raw, x])


def test_replace_on_memory_without_a_map(t, tmp_path):
    src = replace_kernel([R("box_dim", 0, 16)], (0, 0), 128)
    with pytest.raises(emu.AsyncCopyError, match="holds no tensor map"):
        ptxld.RawModule(code=src).get_function("k")(1, 1, [np.zeros(128, np.uint8),
                                                          np.zeros(128, np.uint8), t])


def test_packed_element_types_are_refused_by_name(t, tmp_path):
    """.b4x16 (code 13, PTX ISA 8.7) is a valid map this emulator does not move data for."""
    src = replace_kernel([R("elemtype", 13)], (0, 0), 128, version="8.7", arch="sm_100a")
    ptxas_accepts(src, tmp_path, arch="sm_100a")
    raw = np.frombuffer(bytes(ptxld.TensorMap.tiled(t, box=(16, 2))), np.uint8).copy()
    with pytest.raises(emu.AsyncCopyError, match="packed element type .b4x16 is not executed"):
        ptxld.RawModule(code=src).get_function("k")(1, 1, [np.zeros(128, np.uint8), raw, t])


def test_replace_in_shared_memory_then_copy_to_global(t, tmp_path):
    """The programming guide's pattern: the map copied into shared memory, edited there
    (.shared::cta), and published to global memory with tensormap.cp_fenceproxy."""
    copy_in = "\n".join(f"ld.global.v4.u32 {{%r4, %r5, %r6, %r7}}, [%rd2+{16 * i}];\n"
                        f"st.shared.v4.u32 [smap+{16 * i}], {{%r4, %r5, %r6, %r7}};" for i in range(8))
    edits = [copy_in, "mov.u32 %r3, smap;",
             "tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%r3], 0, 16;",
             "tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%r3], 1, 6;",
             "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned "
             "[%rd2], [%r3], 128;"]
    src = replace_kernel(edits, (4, 5), 2 * 16 * 4).replace(
        ".shared .align 8 .b64 bar;", ".shared .align 8 .b64 bar;\n.shared .align 128 .b8 smap[128];").replace(
        "fence.proxy.tensormap::generic.release.gpu;\n", "")
    out, raw = run(src, t, ptxld.TensorMap.tiled(t, box=(4, 2)), 128, tmp_path)
    got = out.view(np.uint32).reshape(2, 16)
    # rows 5 and 6 of a tensor now 6 rows tall: row 5 is in, row 6 reads zeros
    assert np.array_equal(got[0], t[5, 4:20]) and (got[1] == 0).all()
    edited = emu.tensormap.decode(bytes(raw))
    assert edited["box"] == (16, 2) and edited["dims"] == (64, 6)


def test_packed_types_have_no_encode_call_here():
    with pytest.raises(emu.TensorMapError, match="packed sub-byte tensors are not modelled"):
        ptxld.TensorMap.tiled(np.zeros((4, 16), np.uint8), box=(16, 2), dtype="16U4_align8B")


@pytest.mark.parametrize("offset,fault", [(64 * 4, None), (8, "globalAddress 0x[0-9a-f]+ must be aligned to 16 bytes")])
def test_global_address(t, tmp_path, offset, fault):
    """A new global address one row further in and one row fewer: the map describes t[1:], so
    the box at row 30 holds t's last row and a row past the tensor (zeros); an address 8 bytes
    in breaks the 16-byte alignment."""
    edits = ["ld.param.u64 %rd5, [t];", f"add.s64 %rd5, %rd5, {offset};",
             R("global_address", "%rd5", type_=".b64"), R("global_dim", 1, 31)]
    src = replace_kernel(edits, (0, 30), 2 * 16 * 4)
    ptxas_accepts(src, tmp_path, arch="sm_90a")
    k = ptxld.RawModule(code=src).get_function("k")
    raw = np.frombuffer(bytes(ptxld.TensorMap.tiled(t, box=(16, 2))), np.uint8).copy()
    out = np.zeros(128, np.uint8)
    if fault:
        with pytest.raises(emu.AsyncCopyError, match=fault) as e:
            k(1, 1, [out, raw, t])
        assert e.value.line == line_of(src, "cp.async.bulk.tensor")
        return
    k(1, 1, [out, raw, t])
    got = out.view(np.uint32).reshape(2, 16)
    assert np.array_equal(got[0], t[31, :16]) and (got[1] == 0).all()
