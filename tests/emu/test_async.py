"""Asynchronous copies, mbarriers, clusters and tensor maps: the documented completion policy
(docs/async-copies.md) in both modes, the faults the PTX ISA's rules make precise, and the
driver's tensor-map rules.

References: the kernel corpus's NumPy references (cases_async.py), the PTX ISA's rules for each
fault, and cuTensorMapEncodeTiled's documented parameter requirements."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cli_runner import CliRunner

import ptxld
from ptxld import emu
from ptxld.cli import main

KERNELS = Path(__file__).resolve().parents[1] / "kernels"
sys.path.insert(0, str(KERNELS))
from cases import KERNELS_DIR, assert_matches  # noqa: E402
from cases_async import CASES_ASYNC, POLICY_CASES_ASYNC  # noqa: E402
from cases_sm90 import CASES_SM90  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_kernels import _launch_args, _missing  # noqa: E402  (the harness's tensor-map conversion)

HEAD = """.version 8.3
.target sm_90
.address_size 64
"""


def module(body: str, params: str = ".param .u64 p", decls: str = "", directives: str = "") -> str:
    return HEAD + f"""
.visible .entry k({params}){directives}
{{
.reg .pred %p<4>;
.reg .b32 %r<16>;
.reg .b64 %rd<16>;
{decls}
{body}
ret;
}}
"""


def kernel(body: str, **kw):
    src = module(body, **kw)
    return ptxld.RawModule(code=src).get_function("k"), src


def line_of(src: str, needle: str) -> int:
    return next(i for i, l in enumerate(src.splitlines(), 1) if needle in l)


def ptxas_accepts(src: str, tmp_path, arch: str = "sm_90") -> bool:
    """The hand-written modules are real PTX: ptxas assembles them (skipped without ptxas)."""
    if shutil.which("ptxas") is None:
        return True
    f = tmp_path / "k.ptx"
    f.write_text(src)
    r = subprocess.run(["ptxas", f"-arch={arch}", str(f), "-o", "/dev/null"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return True


# ---- the completion policy ----------------------------------------------------------------------

def _run(case, ptx, mode):
    k = ptxld.RawModule(path=KERNELS_DIR / ptx).get_function(case.entry)
    args = case.make_args()
    launch = {} if case.cluster is None else {"cluster": case.cluster}
    return k, args, lambda: k(case.grid, case.block, _launch_args(args), shared_mem=case.shared_mem,
                              async_copies=mode, **launch)


@pytest.mark.parametrize("pc,mode,ptx", [(pc, m, p) for pc in POLICY_CASES_ASYNC for m in pc.expected
                                         for p in pc.case.ptx],
                         ids=lambda v: getattr(getattr(v, "case", None), "name", str(v).split("/")[-1]))
def test_policy_cases(pc, mode, ptx):
    want = pc.expected[mode]
    k, args, go = _run(pc.case, ptx, mode)
    if isinstance(want, str):
        with pytest.raises(getattr(emu, want)) as e:
            go()
        text = (KERNELS_DIR / ptx).read_text().splitlines()
        # the error names the cp.async instruction's line, and the thread and address
        assert e.value.line is not None and "cp.async" in text[e.value.line - 1]
        assert e.value.thread is not None and e.value.address is not None
        return
    expected = want(args)
    go()
    for index, w in zip(pc.case.outputs, expected):
        assert_matches({"mode": "exact"}, args[index], w)


@pytest.mark.parametrize("case,ptx", [(c, p) for c in CASES_ASYNC + CASES_SM90 if not _missing(c) for p in c.ptx],
                         ids=lambda v: getattr(v, "name", str(v).split("/")[-1]))
def test_correct_kernels_are_right_in_late_mode(case, ptx):
    """Copies landing as late as the ISA allows must not change what a correct kernel computes."""
    k, args, go = _run(case, ptx, "late")
    expected = case.reference(args)
    go()
    for index, want, mode in zip(case.outputs, expected, case.compare):
        assert_matches(mode, args[index], want)


def test_async_copies_mode_is_checked():
    k, _ = kernel("ret;")
    with pytest.raises(ptxld.emu.LaunchError, match="async_copies"):
        k(1, 1, [np.zeros(1, np.uint32)], async_copies="eager")


READ_BEFORE_WAIT = """ld.param.u64 %rd1, [p];
mov.u32 %r1, buf;
mov.u32 %r2, 5;
st.shared.u32 [buf], %r2;
cp.async.ca.shared.global [%r1], [%rd1], 4;
cp.async.commit_group;
ld.shared.u32 %r3, [buf];
cp.async.wait_group 0;
ld.shared.u32 %r4, [buf];
st.global.u32 [%rd1+4], %r3;
st.global.u32 [%rd1+8], %r4;"""


@pytest.mark.parametrize("mode", ["wait", "late"])
def test_shared_memory_is_stale_until_the_wait(mode, tmp_path):
    k, src = kernel(READ_BEFORE_WAIT, decls=".shared .align 4 .u32 buf;")
    ptxas_accepts(src, tmp_path)
    a = np.array([99, 0, 0], np.uint32)
    k(1, 1, [a], async_copies=mode)
    assert a[1] == 5 and a[2] == 99       # before the wait: the old value; after it: the copy


def test_late_mode_reads_the_source_at_completion():
    """The ISA lets the copy read its source any time before it completes: a kernel that
    overwrites the source before waiting sees the new value in late mode."""
    body = """ld.param.u64 %rd1, [p];
mov.u32 %r1, buf;
cp.async.ca.shared.global [%r1], [%rd1], 4;
cp.async.commit_group;
mov.u32 %r2, 1234;
st.global.u32 [%rd1], %r2;
cp.async.wait_group 0;
ld.shared.u32 %r4, [buf];
st.global.u32 [%rd1+4], %r4;"""
    k, _ = kernel(body, decls=".shared .align 4 .u32 buf;")
    a = np.array([7, 0], np.uint32)
    k(1, 1, [a])
    assert a[1] == 7
    a = np.array([7, 0], np.uint32)
    k(1, 1, [a], async_copies="late")
    assert a[1] == 1234


# ---- faults -------------------------------------------------------------------------------------

def test_uncommitted_copy_at_exit(tmp_path):
    body = """ld.param.u64 %rd1, [p];
mov.u32 %r1, buf;
cp.async.cg.shared.global [%r1], [%rd1], 16;"""
    k, src = kernel(body, decls=".shared .align 16 .b8 buf[16];")
    ptxas_accepts(src, tmp_path)
    with pytest.raises(emu.AsyncCopyError, match="never committed") as e:
        k(1, 1, [np.zeros(4, np.uint32)])
    assert e.value.line == line_of(src, "cp.async.cg") and e.value.thread == (0, 0, 0)


def test_misaligned_cp_async(tmp_path):
    body = """ld.param.u64 %rd1, [p];
mov.u32 %r1, buf;
add.u32 %r1, %r1, 8;
cp.async.cg.shared.global [%r1], [%rd1], 16;
cp.async.wait_all;"""
    k, src = kernel(body, decls=".shared .align 16 .b8 buf[32];")
    ptxas_accepts(src, tmp_path)
    with pytest.raises(emu.MisalignedAddressError) as e:
        k(1, 1, [np.zeros(4, np.uint32)])
    assert e.value.line == line_of(src, "cp.async.cg") and e.value.address % 16 == 8


def test_src_size_above_cp_size(tmp_path):
    body = """ld.param.u64 %rd1, [p];
mov.u32 %r1, buf;
mov.u32 %r2, 20;
cp.async.cg.shared.global [%r1], [%rd1], 16, %r2;
cp.async.wait_all;"""
    k, src = kernel(body, decls=".shared .align 16 .b8 buf[16];")
    with pytest.raises(emu.AsyncCopyError, match="src-size 20 exceeds cp-size 16"):
        k(1, 1, [np.zeros(8, np.uint32)])


def test_mbarrier_phase_overflow(tmp_path):
    body = """mov.u32 %r1, bar;
mbarrier.init.shared::cta.b64 [%r1], 2;
mbarrier.arrive.shared::cta.b64 %rd1, [%r1], 3;"""
    k, src = kernel(body, decls=".shared .align 8 .b64 bar;")
    ptxas_accepts(src, tmp_path)
    with pytest.raises(emu.MbarrierError, match="phase overflow") as e:
        k(1, 1, [np.zeros(1, np.uint32)])
    assert e.value.line == line_of(src, "mbarrier.arrive")


def test_mbarrier_not_initialised():
    k, src = kernel("mov.u32 %r1, bar;\nmbarrier.arrive.shared::cta.b64 %rd1, [%r1];",
                    decls=".shared .align 8 .b64 bar;")
    with pytest.raises(emu.MbarrierError, match="not initialised"):
        k(1, 1, [np.zeros(1, np.uint32)])


def test_transaction_count_that_never_completes(tmp_path):
    """expect_tx of 256 bytes, a copy of 128: the phase never completes; the report names the
    barrier, its pending bytes and the waiting threads."""
    body = """ld.param.u64 %rd1, [p];
mov.u32 %r1, bar;
mov.u32 %r2, buf;
mov.u32 %r5, %tid.x;
setp.ne.u32 %p1, %r5, 0;
@%p1 bra WAIT;
mbarrier.init.shared::cta.b64 [%r1], 1;
mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r1], 256;
cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], 128, [%r1];
WAIT:
bar.sync 0;
LOOP:
mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r1], 0;
@!%p2 bra LOOP;"""
    k, src = kernel(body, decls=".shared .align 8 .b64 bar;\n.shared .align 128 .b8 buf[256];")
    ptxas_accepts(src, tmp_path)
    with pytest.raises(emu.MbarrierError, match="mbarrier deadlock") as e:
        k(1, 64, [np.zeros(64, np.uint32)])
    msg = str(e.value)
    assert "128 transaction bytes still pending" in msg and "64 thread(s) wait" in msg
    assert e.value.line == line_of(src, "mbarrier.try_wait")


def test_bulk_copy_size_must_be_a_multiple_of_16(tmp_path):
    body = """ld.param.u64 %rd1, [p];
mov.u32 %r1, bar;
mov.u32 %r2, buf;
mbarrier.init.shared::cta.b64 [%r1], 1;
mov.u32 %r3, 24;
cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1], %r3, [%r1];"""
    # a size in a register: ptxas (and ptxld's checker) refuse an immediate 24 before the run
    k, src = kernel(body, decls=".shared .align 8 .b64 bar;\n.shared .align 128 .b8 buf[256];")
    with pytest.raises(emu.AsyncCopyError, match="multiple of 16") as e:
        k(1, 1, [np.zeros(64, np.uint32)])
    assert e.value.line == line_of(src, "cp.async.bulk")


def test_st_async_to_the_peer_cta_completes_its_barrier(tmp_path):
    """Each CTA of a cluster of 2 expects 8 bytes on its own mbarrier; thread 0 of the other CTA
    st.async's them (through mapa) and they complete the phase (PTX ISA: st.async performs a
    complete-tx of its size on the mbarrier). Before, the barrier was ignored: a deadlock."""
    body = """ld.param.u64 %rd1, [p];
mov.u32 %r1, bar;
mov.u32 %r2, buf;
mov.u32 %r3, %cluster_ctarank;
mov.u32 %r5, %tid.x;
setp.eq.u32 %p1, %r5, 0;
@%p1 mbarrier.init.shared::cta.b64 [%r1], 1;
@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r1], 8;
barrier.cluster.arrive;
barrier.cluster.wait;
xor.b32 %r4, %r3, 1;
mapa.shared::cluster.u32 %r6, %r2, %r4;
mapa.shared::cluster.u32 %r7, %r1, %r4;
mad.lo.u32 %r8, %r3, 100, 7;
@%p1 st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%r6], {%r8, %r3}, [%r7];
LOOP:
mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r1], 0;
@!%p2 bra LOOP;
ld.shared.v2.u32 {%r9, %r10}, [%r2];
mul.wide.u32 %rd3, %r3, 8;
add.u64 %rd3, %rd1, %rd3;
@%p1 st.global.v2.u32 [%rd3], {%r9, %r10};
barrier.cluster.arrive;
barrier.cluster.wait;"""
    k, src = kernel(body, decls=".shared .align 8 .b64 bar;\n.shared .align 16 .b8 buf[16];")
    ptxas_accepts(src, tmp_path, arch="sm_90a")
    out = np.zeros(4, np.uint32)
    k(2, 32, [out], cluster=(2, 1, 1))
    # CTA c reads what CTA 1-c wrote: (100 * (1-c) + 7, 1-c)
    np.testing.assert_array_equal(out, [107, 1, 7, 0])


@pytest.mark.parametrize("body", ["cp.async.wait_group %r1;", "cp.async.bulk.wait_group.read %r1;",
                                  "wgmma.wait_group.sync.aligned %r1;"])
def test_wait_group_count_must_be_an_immediate(body):
    """The PTX ISA's N of the wait_group instructions is an immediate (ptxas: the checker says
    so too); run anyway, the emulator names the operand instead of guessing."""
    src = module("mov.u32 %r1, 0;\n" + body).replace(HEAD, ".version 8.3\n.target sm_90a\n.address_size 64\n")
    k = ptxld.RawModule(code=src, check=False).get_function("k")
    with pytest.raises(emu.UnsupportedInstructionError, match="operand n must be an immediate integer"):
        k(1, 1, [np.zeros(1, np.uint32)])


HEAD_SM100 = ".version 8.6\n.target sm_100a\n.address_size 64\n"


def test_st_bulk_zeroes_the_range(tmp_path):
    body = """ld.param.u64 %rd1, [p];
mov.u32 %r2, buf;
mov.u32 %r3, 0xFFFFFFFF;
st.shared.v4.u32 [%r2], {%r3, %r3, %r3, %r3};
st.shared.v4.u32 [%r2+16], {%r3, %r3, %r3, %r3};
st.bulk.weak.shared::cta [%r2+8], 16, 0;
ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r2];
st.global.v4.u32 [%rd1], {%r4, %r5, %r6, %r7};
ld.shared.v4.u32 {%r4, %r5, %r6, %r7}, [%r2+16];
st.global.v4.u32 [%rd1+16], {%r4, %r5, %r6, %r7};"""
    src = module(body, decls=".shared .align 16 .b8 buf[32];").replace(HEAD, HEAD_SM100)
    k = ptxld.RawModule(code=src).get_function("k")
    ptxas_accepts(src, tmp_path, arch="sm_100a")
    out = np.zeros(8, np.uint32)
    k(1, 1, [out])
    np.testing.assert_array_equal(out, [0xFFFFFFFF] * 2 + [0] * 4 + [0xFFFFFFFF] * 2)


# ---- clusters from the module -------------------------------------------------------------------

CLUSTER_ID = """ld.param.u64 %rd1, [p];
mov.u32 %r1, %cluster_nctarank;
mov.u32 %r2, %ctaid.x;
mul.wide.u32 %rd2, %r2, 4;
add.u64 %rd3, %rd1, %rd2;
st.global.u32 [%rd3], %r1;"""


def test_reqnctapercluster_sets_the_launch_cluster(tmp_path):
    src = module(CLUSTER_ID, directives="\n.explicitcluster\n.reqnctapercluster 2, 1, 1")
    ptxas_accepts(src, tmp_path)
    k = ptxld.RawModule(code=src).get_function("k")
    a = np.zeros(4, np.uint32)
    k(4, 32, [a])
    assert (a == 2).all()
    with pytest.raises(emu.LaunchError, match="requires clusters of \\(2, 1, 1\\)"):
        k(4, 32, [a], cluster=(4, 1, 1))
    k(4, 32, [a], cluster=(2, 1, 1))


def test_maxclusterrank_bounds_the_cluster():
    src = module(CLUSTER_ID, directives="\n.maxclusterrank 2")
    k = ptxld.RawModule(code=src).get_function("k")
    a = np.zeros(4, np.uint32)
    k(4, 32, [a], cluster=(2, 1, 1))
    assert (a == 2).all()
    with pytest.raises(emu.LaunchError, match="at most 2 CTAs per cluster"):
        k(4, 32, [a], cluster=(4, 1, 1))


def test_explicitcluster_needs_a_cluster():
    src = module(CLUSTER_ID, directives="\n.explicitcluster")
    k = ptxld.RawModule(code=src).get_function("k")
    with pytest.raises(emu.LaunchError, match="explicitcluster"):
        k(4, 32, [np.zeros(4, np.uint32)])


# ---- tensor maps: cuTensorMapEncodeTiled's requirements -----------------------------------------

@pytest.mark.parametrize("kw,why", [
    (dict(box=(3, 4)), "multiple of 16"),                       # 12-byte inner box
    (dict(box=(300, 4)), "1..256"),
    (dict(box=(64, 4), swizzle="64B"), "exceeds the 64B swizzle span"),   # 256-byte rows
    (dict(box=(8, 4), element_strides=(1, 9)), "element_strides"),
    (dict(box=(8, 4), swizzle="16B"), "swizzle"),
    (dict(box=(8,)), "rank 2"),
    (dict(box=(8, 4), oob_fill="nan"), "floating-point"),
])
def test_tiled_map_rules(kw, why):
    a = np.zeros((8, 64), np.uint32)
    with pytest.raises(emu.TensorMapError, match=why):
        ptxld.TensorMap.tiled(a, **kw)


def test_map_rules_on_strides():
    a = np.zeros((8, 68), np.uint32)[:, :60]       # rows 272 bytes apart: fine
    ptxld.TensorMap.tiled(a, box=(8, 4))
    b = np.zeros((8, 66), np.uint32)[:, :60]       # 264 bytes: not a multiple of 16
    with pytest.raises(emu.TensorMapError, match="globalStrides"):
        ptxld.TensorMap.tiled(b, box=(8, 4))


def test_map_is_128_bytes_and_round_trips():
    a = np.zeros((16, 32), np.float32)
    m = ptxld.TensorMap.tiled(a, box=(32, 8), swizzle="128B", oob_fill="nan")
    raw = bytes(m)
    assert len(raw) == 128
    f = emu.tensormap.decode(raw)
    assert f["dims"] == (32, 16) and f["box"] == (32, 8) and f["strides"] == (128,)
    assert f["swizzle"] == "128B" and f["oob"] == "nan"


@pytest.mark.parametrize("l2", ["none", "64B", "128B", "256B"])
def test_map_fields_decode_to_what_encodes_them(l2):
    """decode is the inverse of encode for every field (the L2 promotion came back as its
    numeric code, which encode could not take)."""
    a = np.zeros((6, 10, 16), np.uint16)
    raw = bytes(ptxld.TensorMap.tiled(a, box=(8, 4, 2), l2_promotion=l2, swizzle="32B"))
    f = emu.tensormap.decode(raw)
    assert f["l2"] == l2
    assert emu.tensormap.encode(f) == raw


def test_tensor_copy_rank_must_match_the_map(tmp_path):
    body = """mov.u64 %rd1, tmap;
cvta.param.u64 %rd1, %rd1;
mov.u32 %r1, bar;
mov.u32 %r2, buf;
mov.u32 %r3, 0;
mbarrier.init.shared::cta.b64 [%r1], 1;
cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd1, {%r3, %r3, %r3}], [%r1];"""
    src = module(body, params=".param .align 128 .b8 tmap[128], .param .u64 p",
                 decls=".shared .align 8 .b64 bar;\n.shared .align 128 .b8 buf[1024];")
    ptxas_accepts(src, tmp_path)
    k = ptxld.RawModule(code=src).get_function("k")
    a = np.zeros((16, 16), np.float32)
    with pytest.raises(emu.AsyncCopyError, match="\\.3d tensor copy through a tensor map of rank 2") as e:
        k(1, 1, [ptxld.TensorMap.tiled(a, box=(16, 16)), a])
    assert e.value.line == line_of(src, "cp.async.bulk.tensor")


def test_nan_fill_is_the_canonical_nan(tmp_path):
    """A box running past the tensor reads the canonical NaN when the map asks for NaN."""
    body = """ld.param.u64 %rd9, [p];
mov.u64 %rd1, tmap;
cvta.param.u64 %rd1, %rd1;
mov.u32 %r1, bar;
mov.u32 %r2, buf;
mov.u32 %r3, 0;
mov.u32 %r4, 12;
mbarrier.init.shared::cta.b64 [%r1], 1;
mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r1], 256;
cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [%rd1, {%r3, %r4}], [%r1];
LOOP:
mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0;
@!%p1 bra LOOP;
ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [buf+240];
st.global.v4.u32 [%rd9], {%r5, %r6, %r7, %r8};
ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [buf];
st.global.v4.u32 [%rd9+16], {%r5, %r6, %r7, %r8};"""
    src = module(body, params=".param .align 128 .b8 tmap[128], .param .u64 p",
                 decls=".shared .align 8 .b64 bar;\n.shared .align 128 .b8 buf[256];")
    ptxas_accepts(src, tmp_path)
    k = ptxld.RawModule(code=src).get_function("k")
    t = np.arange(16 * 16, dtype=np.float32).reshape(16, 16)
    out = np.zeros(8, np.uint32)
    k(1, 1, [ptxld.TensorMap.tiled(t, box=(4, 16), oob_fill="nan"), out])
    # rows 12..27 of a 16-row tensor: the last box row (27) is out of bounds, the first (12) in
    assert (out[:4] == 0x7FFFFFFF).all()
    assert (out[4:].view(np.float32) == t[12, :4]).all()


LOAD_ROW = """ld.param.u64 %rd9, [p];
mov.u32 %r1, bar;
mov.u32 %r2, buf;
mov.u32 %r3, 0;
mov.u32 %r4, 2;
mbarrier.init.shared::cta.b64 [%r1], 1;
mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r1], 64;
cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r2], [MAP, {%r3, %r4}], [%r1];
LOOP:
mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0;
@!%p1 bra LOOP;
ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [buf];
st.global.v4.u32 [%rd9], {%r5, %r6, %r7, %r8};
ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [buf+48];
st.global.v4.u32 [%rd9+16], {%r5, %r6, %r7, %r8};"""


def test_tensor_map_in_a_global_variable(tmp_path):
    """A map copied into a module .global variable is read from there; its tensor is another
    argument of the launch."""
    body = LOAD_ROW.replace("[MAP,", "[gmap,")
    src = HEAD + ".global .align 128 .b8 gmap[128];\n" + module(
        body, params=".param .u64 p, .param .u64 t",
        decls=".shared .align 8 .b64 bar;\n.shared .align 128 .b8 buf[64];")[len(HEAD):]
    ptxas_accepts(src, tmp_path)
    mod = ptxld.RawModule(code=src)
    t = np.arange(8 * 16, dtype=np.uint32).reshape(8, 16)
    mod.get_global("gmap")[:] = np.frombuffer(bytes(ptxld.TensorMap.tiled(t, box=(16, 1))), np.uint8)
    out = np.zeros(8, np.uint32)
    mod.get_function("k")(1, 1, [out, t])
    assert (out[:4] == t[2, :4]).all() and (out[4:] == t[2, 12:]).all()


def test_tensor_map_whose_array_is_no_argument(tmp_path):
    """A map over an array the launch does not otherwise receive gets a buffer of its own."""
    body = LOAD_ROW.replace("[MAP,", "[%rd1,")
    body = "mov.u64 %rd1, tmap;\ncvta.param.u64 %rd1, %rd1;\n" + body
    src = module(body, params=".param .align 128 .b8 tmap[128], .param .u64 p",
                 decls=".shared .align 8 .b64 bar;\n.shared .align 128 .b8 buf[64];")
    ptxas_accepts(src, tmp_path)
    t = np.arange(8 * 16, dtype=np.uint32).reshape(8, 16) * 3
    out = np.zeros(8, np.uint32)
    ptxld.RawModule(code=src).get_function("k")(1, 1, [ptxld.TensorMap.tiled(t[1:], box=(16, 1)), out])
    assert (out[:4] == t[3, :4]).all() and (out[4:] == t[3, 12:]).all()


def test_multicast_mask_outside_the_cluster(tmp_path):
    body = """ld.param.u64 %rd1, [p];
mov.u32 %r1, bar;
mov.u32 %r2, buf;
mov.u16 %rs1, 5;
mbarrier.init.shared::cta.b64 [%r1], 1;
cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r2], [%rd1], 16, [%r1], %rs1;"""
    src = module(body, decls=".reg .b16 %rs<2>;\n.shared .align 8 .b64 bar;\n.shared .align 128 .b8 buf[16];")
    src = src.replace(".target sm_90", ".target sm_90a")
    ptxas_accepts(src, tmp_path, arch="sm_90a")
    k = ptxld.RawModule(code=src).get_function("k")
    with pytest.raises(emu.AsyncCopyError, match="names CTA rank 2, outside the cluster of 2") as e:
        k(2, 1, [np.zeros(8, np.uint32)], cluster=(2, 1, 1))
    assert e.value.line == line_of(src, "multicast::cluster")


CP_ASYNC_ARRIVE = """ld.param.u64 %rd1, [p];
mov.u32 %r1, bar;
mov.u32 %r2, buf;
mbarrier.init.shared::cta.b64 [%r1], 1;
cp.async.ca.shared.global [%r2], [%rd1], 4;
cp.async.mbarrier.arrive{NOINC}.shared::cta.b64 [%r1];
{OWN}
LOOP:
mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], 0;
@!%p1 bra LOOP;
ld.shared.u32 %r3, [buf];
st.global.u32 [%rd1+4], %r3;"""


@pytest.mark.parametrize("noinc,own,ok", [(True, False, True), (False, True, True), (False, False, False)])
def test_cp_async_mbarrier_arrive(noinc, own, ok, tmp_path):
    """PTX ISA: without .noinc the pending count is raised by one before the asynchronous
    arrive-on, so the thread's own arrival is still needed; with .noinc the arrive-on is one of
    the expected arrivals. Either way the copy has landed when the phase completes."""
    body = CP_ASYNC_ARRIVE.replace("{NOINC}", ".noinc" if noinc else "").replace(
        "{OWN}", "mbarrier.arrive.shared::cta.b64 %rd2, [%r1];" if own else "")
    k, src = kernel(body, decls=".shared .align 8 .b64 bar;\n.shared .align 4 .u32 buf;")
    ptxas_accepts(src, tmp_path)
    a = np.array([4321, 0], np.uint32)
    if ok:
        k(1, 1, [a])
        assert a[1] == 4321
    else:
        with pytest.raises(emu.MbarrierError, match="1 of 1 arrivals"):
            k(1, 1, [a])


def test_run_command_takes_the_completion_mode(tmp_path):
    """`ptxld run --async-copies late` runs async_wait_too_few with the late policy: the stage
    the kernel reads too early holds its old value; the default mode gives the copy."""
    pc = next(p for p in POLICY_CASES_ASYNC if p.case.name == "async_wait_too_few")
    ptx = str(KERNELS_DIR / pc.case.ptx[0])
    for mode in ("wait", "late"):
        args = pc.case.make_args()
        np.save(tmp_path / "src.npy", args[0])
        np.save(tmp_path / "out.npy", args[1])
        r = CliRunner().invoke(main, ["run", ptx, "--kernel", pc.case.entry, "--block", "32",
                                      "--async-copies", mode, str(tmp_path / "src.npy"),
                                      str(tmp_path / "out.npy")])
        assert r.exit_code == 0, r.output
        assert_matches({"mode": "exact"}, np.load(tmp_path / "out.npy"), pc.expected[mode](args)[0])


def _bf16_value(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


@pytest.mark.parametrize("op", ["min", "max"])
def test_bulk_reduce_bf16_min_max(op, tmp_path):
    """cp.reduce.async.bulk .min/.max.bf16 into global memory: element-wise over the bf16
    values, -0 below +0, a NaN loses to a number."""
    body = f"""ld.param.u64 %rd1, [p];
ld.param.u64 %rd2, [q];
mov.u32 %r1, buf;
mov.u32 %r2, bar;
mbarrier.init.shared::cta.b64 [%r2], 1;
mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r2], 32;
cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd2], 32, [%r2];
LOOP:
mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], 0;
@!%p1 bra LOOP;
cp.reduce.async.bulk.global.shared::cta.bulk_group.{op}.bf16 [%rd1], [%r1], 32;
cp.async.bulk.commit_group;
cp.async.bulk.wait_group.read 0;"""
    k, src = kernel(body, params=".param .u64 p, .param .u64 q",
                    decls=".shared .align 8 .b64 bar;\n.shared .align 128 .b8 buf[32];")
    ptxas_accepts(src, tmp_path)
    vals = np.array([1.0, -2.0, 3.5, -0.0, 0.0, np.nan, 7.0, -1.5, 100.0, -100.0, 0.25, 2.0, -3.0, 8.0, 0.5, 1.0],
                    np.float32)
    other = np.array([2.0, -3.0, 3.5, 0.0, -0.0, 4.0, np.nan, -1.0, -100.0, 100.0, 0.5, 2.0, 3.0, -8.0, 0.0, 1.0],
                     np.float32)
    acc = (vals.view(np.uint32) >> 16).astype(np.uint16)
    src_bits = (other.view(np.uint32) >> 16).astype(np.uint16)
    out = acc.copy()
    k(1, 1, [out, src_bits])
    a, b = _bf16_value(acc), _bf16_value(src_bits)
    want = np.fmin(a, b) if op == "min" else np.fmax(a, b)
    got = _bf16_value(out)
    assert np.array_equal(got, want)
    zeros = (a == 0) & (b == 0)
    assert (np.signbit(got[zeros]) == (op == "min")).all()


def test_test_wait_can_return_false_and_the_thread_goes_on(tmp_path):
    """A test_wait whose phase cannot complete yet returns false (here the waiting thread itself
    owes the missing arrival): the thread takes its other path instead of hanging."""
    body = """ld.param.u64 %rd1, [p];
mov.u32 %r1, bar;
mbarrier.init.shared::cta.b64 [%r1], 2;
mbarrier.arrive.shared::cta.b64 %rd2, [%r1];
mbarrier.test_wait.shared::cta.b64 %p1, [%r1], %rd2;
selp.u32 %r2, 1, 0, %p1;
st.global.u32 [%rd1], %r2;
@%p1 bra DONE;
mbarrier.arrive.shared::cta.b64 %rd3, [%r1];
mbarrier.test_wait.shared::cta.b64 %p1, [%r1], %rd2;
selp.u32 %r2, 1, 0, %p1;
st.global.u32 [%rd1+4], %r2;
DONE:"""
    k, src = kernel(body, decls=".shared .align 8 .b64 bar;")
    ptxas_accepts(src, tmp_path)
    a = np.full(2, 7, np.uint32)
    k(1, 1, [a])
    assert list(a) == [0, 1]


def test_memory_report_sees_cp_async():
    """With the memory report on, every cp.async tells its global read: the double-buffered
    GEMM reads each A and B tile once per CTA, n*n/256 CTAs x k/16 steps x 2 tiles of 1 KiB,
    in 32-byte sectors with no excess (16 aligned bytes per thread, four threads per row)."""
    case = next(c for c in CASES_ASYNC if c.name == "async_gemm")
    k = ptxld.RawModule(path=KERNELS_DIR / case.ptx[0]).get_function(case.entry)
    args = case.make_args()
    report = k(case.grid, case.block, args, memory_report=True).to_dict()
    rows = [r for r in report["lines"] if r["instruction"].startswith("cp.async.cg")]
    n, kk = int(args[3]), int(args[4])
    assert len(rows) == 4 and all(r["kind"].startswith("cp.async") for r in rows)
    assert sum(r["sectors"] for r in rows) == (n // 16) ** 2 * (kk // 16) * 2 * 1024 // 32
    assert all(r["excess_sectors"] == 0 for r in rows)


def test_tensor_map_in_a_const_variable(tmp_path):
    """A map written into a module .const variable (RawModule.get_const, as cudaMemcpyToSymbol)
    is read from the constant bank."""
    body = LOAD_ROW.replace("[MAP,", "[%rd1,")
    body = "mov.u64 %rd1, cmap;\ncvta.const.u64 %rd1, %rd1;\n" + body
    src = HEAD + ".const .align 64 .b8 cmap[128];\n" + module(
        body, params=".param .u64 p, .param .u64 t",
        decls=".shared .align 8 .b64 bar;\n.shared .align 128 .b8 buf[64];")[len(HEAD):]
    ptxas_accepts(src, tmp_path)
    mod = ptxld.RawModule(code=src)
    t = np.arange(8 * 16, dtype=np.uint32).reshape(8, 16) + 1000
    mod.get_const("cmap")[:] = np.frombuffer(bytes(ptxld.TensorMap.tiled(t, box=(16, 1))), np.uint8)
    out = np.zeros(8, np.uint32)
    mod.get_function("k")(1, 1, [out, t])
    assert (out[:4] == t[2, :4]).all() and (out[4:] == t[2, 12:]).all()
