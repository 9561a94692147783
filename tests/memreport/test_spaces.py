"""Every kind of access reaches the report: generic addresses resolved to their state space,
local memory (interleaved per warp, as the docs describe), atomics, wmma loads, constant loads;
and the hook costs nothing without a report. Small hand-written PTX where a form is needed."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import ptxld
from ptxld.emu.trace import hints_of
from ptxld.memreport import Recorder
from ptxld.spec.decode import decode

def ln(src: str, needle: str) -> int:
    """The line number of the first line of `src` containing `needle`."""
    return next(n for n, t in enumerate(src.splitlines(), 1) if needle in t)


KERNELS = Path(__file__).resolve().parents[1] / "kernels"
sys.path.insert(0, str(KERNELS))
from cases_sm90 import CASES_SM90  # noqa: E402  (the corpus manifest)

HEAD = """.version 8.0
.target sm_80
.address_size 64
"""

GENERIC = HEAD + """
.visible .entry k(.param .u64 pg, .param .u32 split)
{
.reg .b64 %rd<12>; .reg .b32 %r<6>; .reg .pred %p<2>;
.shared .align 8 .b32 sh[64];
ld.param.u64 %rd1, [pg];
ld.param.u32 %r4, [split];
mov.u32 %r1, %tid.x;
mov.u64 %rd2, sh;
cvta.shared.u64 %rd3, %rd2;
mul.wide.u32 %rd4, %r1, 8;
add.s64 %rd5, %rd3, %rd4;
st.u32 [%rd5], %r1;
mul.wide.u32 %rd6, %r1, 4;
add.s64 %rd7, %rd1, %rd6;
setp.lt.u32 %p1, %r1, %r4;
selp.b64 %rd8, %rd5, %rd7, %p1;
ld.u32 %r2, [%rd8];
st.global.u32 [%rd7], %r2;
ret;
}
"""


def test_generic_accesses_are_counted_in_their_space():
    mod = ptxld.RawModule(code=GENERIC)
    g = np.zeros(32, np.uint32)
    rep = mod.get_function("k")(1, 32, [g, np.uint32(16)], memory_report=True)
    t = np.arange(32)
    np.testing.assert_array_equal(g, np.where(t < 16, t, 0))
    st = rep.line(ln(GENERIC, "st.u32"))
    # generic store into shared memory, 8-byte stride: lanes t and t+16 hit bank 2t mod 32 with
    # different words -> 2 wavefronts where 1 would do
    assert st["spaces"] == [".shared"]
    assert (st["wavefronts"], st["wavefronts_ideal"], st["sectors"]) == (2, 1, 0)
    ld = rep.line(ln(GENERIC, "ld.u32"))
    # lanes 0-15 read shared words 0, 2, ..., 30 (16 banks, 1 wavefront), lanes 16-31 read
    # global bytes 64..127 (2 sectors)
    assert ld["spaces"] == [".global", ".shared"]
    assert (ld["wavefronts"], ld["sectors"], ld["sectors_ideal"]) == (1, 2, 2)
    assert ld["executions"] == 1 and ld["threads"] == 32


LOCAL = HEAD + """
.visible .entry k(.param .u64 pout, .param .u32 spread)
{
.local .align 4 .b8 arr[32];
.reg .b64 %rd<8>; .reg .b32 %r<6>;
ld.param.u64 %rd1, [pout];
ld.param.u32 %r5, [spread];
mov.u32 %r1, %tid.x;
mul.lo.u32 %r2, %r1, %r5;
and.b32 %r2, %r2, 7;
mul.wide.u32 %rd2, %r2, 4;
mov.u64 %rd3, arr;
add.s64 %rd4, %rd3, %rd2;
st.local.u32 [%rd4], %r1;
ld.local.u32 %r3, [%rd4];
mul.wide.u32 %rd5, %r1, 4;
add.s64 %rd6, %rd1, %rd5;
st.global.u32 [%rd6], %r3;
ret;
}
"""


@pytest.mark.parametrize("spread,sectors", [(0, 4), (1, 32)])
def test_local_memory_is_interleaved_per_warp(spread, sectors):
    # the model lays local word k of lane l at 128 k + 4 l: the same variable in every lane is
    # 128 contiguous bytes (4 sectors); word (l mod 8) of lane l puts every lane in a sector
    # of its own (32)
    mod = ptxld.RawModule(code=LOCAL)
    out = np.zeros(32, np.uint32)
    rep = mod.get_function("k")(1, 32, [out, np.uint32(spread)], memory_report=True)
    np.testing.assert_array_equal(out, np.arange(32))
    st, ld = rep.line(ln(LOCAL, "st.local")), rep.line(ln(LOCAL, "ld.local"))
    assert st["spaces"] == [".local"] and (st["sectors"], st["sectors_ideal"]) == (sectors, 4)
    # the store allocated the sectors in L1 (model: local stores write-allocate), so the load hits
    assert (ld["l1_hits"], ld["l1_misses"]) == (sectors, 0)


ATOM = HEAD + """
.visible .entry k(.param .u64 pc)
{
.reg .b64 %rd<4>; .reg .b32 %r<4>;
ld.param.u64 %rd1, [pc];
atom.global.add.u32 %r1, [%rd1], 1;
red.global.add.u32 [%rd1+4], 2;
ret;
}
"""


def test_atomics_count_sectors_and_go_to_l2():
    mod = ptxld.RawModule(code=ATOM)
    c = np.zeros(2, np.uint32)
    rep = mod.get_function("k")(2, 32, [c], memory_report=True)
    np.testing.assert_array_equal(c, [64, 128])
    atom, red = rep.line(ln(ATOM, "atom.")), rep.line(ln(ATOM, "red."))
    # every lane one word: 1 sector per warp, 2 warps; L1 is not read, L2 misses once, then hits
    assert (atom["requests"], atom["sectors"], atom["sectors_ideal"]) == (2, 2, 2)
    assert (atom["l1_hits"], atom["l1_misses"], atom["l2_misses"], atom["l2_hits"]) == (0, 0, 1, 1)
    assert red["l2_hits"] == 2 and red["dram_read_sectors"] == 0


WMMA = HEAD + """
.visible .entry k(.param .u64 pa, .param .u64 pd, .param .u32 stride)
{
.reg .b64 %rd<4>; .reg .b32 %r<10>; .reg .f32 %f<9>;
ld.param.u64 %rd1, [pa];
ld.param.u64 %rd2, [pd];
ld.param.u32 %r9, [stride];
wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], %r9;
st.global.u32 [%rd2], %r1;
ret;
}
"""


@pytest.mark.parametrize("stride", [16, 32, 48])
def test_wmma_load_footprint(stride):
    # a 16x16 f16 tile, row-major, `stride` elements between rows: 16 rows of 32 bytes
    mod = ptxld.RawModule(code=WMMA)
    a = np.zeros(16 * stride, np.float16)
    rep = mod.get_function("k")(1, 32, [a, np.zeros(1, np.uint32), np.uint32(stride)],
                                memory_report=True)
    ld = rep.line(ln(WMMA, "wmma.load"))
    starts = np.arange(16) * stride * 2
    sectors = {s for r in starts for s in range(r // 32, (r + 31) // 32 + 1)}
    assert ld["sectors"] == len(sectors)
    assert ld["sectors_ideal"] == 16 and ld["executions"] == 1


CONST = HEAD + """
.const .align 4 .b32 table[64];
.visible .entry k(.param .u64 pout)
{
.reg .b64 %rd<6>; .reg .b32 %r<4>;
ld.param.u64 %rd1, [pout];
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd2, %r1, 4;
mov.u64 %rd3, table;
add.s64 %rd4, %rd3, %rd2;
ld.const.u32 %r2, [%rd4];
add.s64 %rd5, %rd1, %rd2;
st.global.u32 [%rd5], %r2;
ret;
}
"""


def test_const_loads_count_sectors_but_skip_the_l1_l2_model():
    mod = ptxld.RawModule(code=CONST)
    rep = mod.get_function("k")(1, 32, [np.zeros(32, np.uint32)], memory_report=True)
    r = rep.line(ln(CONST, "ld.const"))
    assert r["spaces"] == [".const"] and r["sectors"] == 4
    assert r["l1_hits"] == r["l1_misses"] == r["l2_hits"] == r["l2_misses"] == 0


def test_without_a_report_no_recorder_is_called():
    mod = ptxld.RawModule(code=ATOM)
    k = mod.get_function("k")
    stats = k(1, 32, [np.zeros(2, np.uint32)])
    assert type(stats).__name__ == "LaunchStats" and k.trace is None


class _Batch:
    """The parts of an emulator batch the recorder reads, for a copy instruction the emulator
    does not run yet (cp.async reports its read and its write through the same hook)."""

    def __init__(self, n):
        self.N, self.spc = n, 32 * ((n + 31) // 32)
        self.cta_of = np.zeros(n, np.int64)

    def threads(self, act):
        return np.arange(self.N) if act is None else act


def test_a_copy_counts_one_execution_and_both_sides():
    class Op:
        pc, line, text = 0, 7, "cp.async.cg.shared.global [d], [s], 16;"

    mod = ptxld.RawModule(code=ATOM)
    kernel = mod.get_function("k")
    kernel._batch_first = 0
    rec = Recorder(kernel)
    b = _Batch(32)
    t = np.arange(32, dtype=np.uint64)
    hints = hints_of(decode("cp.async.cg.shared.global"))
    rec.record(b, Op, "cp.async.src", ".global", None, 0x7F00_0000_0000 + 16 * t, 16, hints, None)
    rec.record(b, Op, "cp.async.dst", ".shared", None, 16 * t, 16, hints, None)
    rep = rec.finish(None)
    r = rep.line(7)
    assert (r["executions"], r["threads"]) == (1, 32)
    # the global read: 512 contiguous bytes, 16 sectors, .cg so L1 is not involved
    assert (r["sectors"], r["sectors_ideal"], r["l1_misses"], r["l2_misses"]) == (16, 16, 0, 16)
    # the shared write: 4 phases of 8 lanes x 16 bytes, one wavefront each
    assert (r["wavefronts"], r["bank_conflicts"]) == (4, 0)
    assert r["requests"] == 2 and r["spaces"] == [".global", ".shared"]


CP_ASYNC = HEAD + """
.visible .entry k(.param .u64 pg, .param .u64 pout, .param .u32 limit)
{
.reg .b64 %rd<8>; .reg .b32 %r<8>; .reg .pred %p<2>;
.shared .align 16 .b8 buf[512];
ld.param.u64 %rd1, [pg];
ld.param.u64 %rd2, [pout];
ld.param.u32 %r5, [limit];
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd3, %r1, 16;
add.s64 %rd4, %rd1, %rd3;
mov.u32 %r2, buf;
shl.b32 %r3, %r1, 4;
add.s32 %r4, %r2, %r3;
setp.lt.u32 %p1, %r1, %r5;
selp.u32 %r6, 16, 0, %p1;
cp.async.cg.shared.global [%r4], [%rd4], 16, %r6;
cp.async.commit_group;
cp.async.wait_all;
ld.shared.u32 %r7, [%r4];
mul.wide.u32 %rd5, %r1, 4;
add.s64 %rd6, %rd2, %rd5;
st.global.u32 [%rd6], %r7;
ret;
}
"""


@pytest.mark.parametrize("limit,read_sectors", [(32, 16), (16, 8), (0, 0)])
def test_cp_async_counts_its_global_read_and_shared_write(limit, read_sectors):
    mod = ptxld.RawModule(code=CP_ASYNC)
    g = np.arange(128, dtype=np.uint32)
    out = np.zeros(32, np.uint32)
    rep = mod.get_function("k")(1, 32, [g, out, np.uint32(limit)], memory_report=True)
    t = np.arange(32)
    np.testing.assert_array_equal(out, np.where(t < limit, g[4 * t], 0))
    r = rep.line(ln(CP_ASYNC, "cp.async.cg"))
    assert (r["executions"], r["threads"]) == (1, 32)
    # lanes below `limit` read 16 bytes each (src-size 16), the rest read nothing (src-size 0):
    # contiguous from an aligned base; .cg: L2 only
    assert (r["sectors"], r["sectors_ideal"]) == (read_sectors, read_sectors)
    assert (r["l1_misses"], r["l2_misses"]) == (0, read_sectors)
    # every lane writes 16 bytes of shared memory: 4 phases of 8 lanes, one wavefront each
    assert (r["wavefronts"], r["bank_conflicts"]) == (4, 0)


def test_tensor_copy_counts_the_global_box():
    # tma_tile_noswizzle (sm90_tma.cu): a 32 x 20 uint32 tensor with rows of 32 elements in
    # memory, 12 x 16 boxes at (12 bx, 16 by) for 4 CTAs; elements outside the tensor are not read
    case = next(c for c in CASES_SM90 if c.name == "tma_tile_noswizzle")
    args = case.make_args()
    tmap_arg = args[0]
    tmap = ptxld.TensorMap.tiled(tmap_arg.view(args), box=tmap_arg.box)
    mod = ptxld.RawModule(path=KERNELS / case.ptx[0])
    rep = mod.get_function(case.entry)(case.grid, case.block, [tmap, *args[1:]], memory_report=True)
    np.testing.assert_array_equal(args[2], case.reference(args)[0])
    r = next(x for x in rep.lines if x["instruction"].startswith("cp.async.bulk.tensor"))
    sectors = ideal = 0
    every = set()
    for by in range(2):
        for bx in range(2):
            cols = [x for x in range(12 * bx, 12 * bx + 12) if x < 20]
            rows = range(16 * by, 16 * by + 16)
            byte = {(y * 32 + x) * 4 + k for y in rows for x in cols for k in range(4)}
            sectors += len({v // 32 for v in byte})
            ideal += -(-len(byte) // 32)
            every |= {v // 32 for v in byte}
    assert (r["executions"], r["threads"]) == (4, 4)
    assert (r["sectors"], r["sectors_ideal"]) == (sectors, ideal)
    # past L1; a sector two boxes share (bytes 32-63 of a row) misses in L2 once, then hits
    assert r["l1_misses"] == 0 and r["l2_misses"] == len(every)
    assert r["l2_hits"] == sectors - len(every)
    # the shared side: each CTA's whole 12 x 16 box of 4-byte elements, the zero-filled
    # columns past the tensor included; moved by the bulk-copy unit, so no wavefronts
    assert r["shared_bytes"] == 4 * 12 * 16 * 4
    assert r["spaces"] == [".global", ".shared"] and r["wavefronts"] == 0


def _run_case(name):
    case = next(c for c in CASES_SM90 if c.name == name)
    args = case.make_args()
    launch = [a if not hasattr(a, "box") else ptxld.TensorMap.tiled(a.view(args), box=a.box) for a in args]
    mod = ptxld.RawModule(path=KERNELS / case.ptx[0])
    kw = {} if case.cluster is None else {"cluster": case.cluster}
    rep = mod.get_function(case.entry)(case.grid, case.block, launch, memory_report=True, **kw)
    for i, want in zip(case.outputs, case.reference(args)):
        np.testing.assert_array_equal(args[i], want)
    return rep


def test_multicast_tensor_copy_counts_every_destination():
    """tma_multicast (sm90a_hopper.cu): 4 CTAs in clusters of 2, each loading 8 rows of 32 floats
    (1 KiB) multicast to both CTAs of its cluster: every CTA receives the whole 2 KiB tile."""
    rep = _run_case("tma_multicast")
    r = next(x for x in rep.lines if x["instruction"].startswith("cp.async.bulk.tensor"))
    assert r["shared_bytes"] == 4 * 2048
    assert (r["sectors"], r["sectors_ideal"]) == (4 * 1024 // 32, 4 * 1024 // 32)
    assert r["executions"] == 4


def test_bulk_copies_count_their_shared_side():
    """bulk_roundtrip (sm90_bulk.cu): 4 CTAs copy 256 floats into shared memory and back; both
    lines move 1 KiB of shared memory per CTA as well as 32 sectors of global memory."""
    rep = _run_case("bulk_roundtrip")
    bulk = [x for x in rep.lines if x["instruction"].startswith(("cp.async.bulk.shared", "cp.async.bulk.global"))]
    assert len(bulk) == 2
    for r in bulk:
        assert r["shared_bytes"] == 4 * 1024 and r["sectors"] == 4 * 1024 // 32
        assert r["executions"] == 4 and r["wavefronts"] == 0
    assert "bulk smem" in rep.table()


LDMATRIX = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 pout, .param .u32 stride)
{
.reg .b64 %rd<6>; .reg .b32 %r<12>;
.shared .align 16 .b8 buf[2048];
ld.param.u64 %rd1, [pout];
ld.param.u32 %r9, [stride];
mov.u32 %r1, %tid.x;
mov.u32 %r2, buf;
mad.lo.u32 %r3, %r1, %r9, %r2;
ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r4, %r5, %r6, %r7}, [%r3];
mul.wide.u32 %rd2, %r1, 4;
add.s64 %rd3, %rd1, %rd2;
st.global.u32 [%rd3], %r4;
ret;
}
"""


@pytest.mark.parametrize("stride,wavefronts", [
    (16, 4),      # 32 rows of 16 bytes side by side: 4 phases of 8 rows, one wavefront each
    (64, 16),     # rows 64 bytes apart: in a phase rows 0,2,4,6 share banks 0-3 and rows
                  # 1,3,5,7 banks 16-19, four words per bank: 4 wavefronts per phase
])
def test_ldmatrix_rows_in_shared_phases(stride, wavefronts):
    mod = ptxld.RawModule(code=LDMATRIX)
    rep = mod.get_function("k")(1, 32, [np.zeros(32, np.uint32), np.uint32(stride)],
                                memory_report=True)
    r = rep.line(ln(LDMATRIX, "ldmatrix"))
    assert r["spaces"] == [".shared"] and r["executions"] == 1
    assert (r["wavefronts"], r["wavefronts_ideal"]) == (wavefronts, 4)
