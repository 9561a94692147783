"""ptxld.wmma.batched (every warp at once) gives the bits ptxld.wmma's per-warp functions give:
loads from random memory at per-warp addresses and strides, mma on those fragments (random bit
patterns, so NaN, infinities and subnormals included), stores into memory; and it declines
(None / False) exactly where the per-warp functions raise."""
import numpy as np
import pytest

from ptxld import wmma
from ptxld.spec import wmma as spec
from ptxld.wmma import WmmaError, batched
from wmma_helpers import Memory

TARGET = "sm_80"
NW = 3                                   # warps per batch
COMBOS = [m for m in spec.mma_combinations() if m.gate.min_sm <= 80]


def _mma_opcode(m, al, bl):
    mods = ["wmma", "mma"] + ([m.op] if m.op else []) + ["sync", "aligned", al, bl, m.shape]
    return ".".join(mods + list(m.suffix_types))


def _load_warps(mem, matrix, t, lay, shape, bases, stride):
    op = f"wmma.load.{matrix}.sync.aligned.{lay}.{shape}.{t}"
    return op, np.stack([wmma.load(op, mem.read, b, stride, TARGET) for b in bases])


@pytest.mark.parametrize("m", COMBOS, ids=lambda m: f"{m.shape}-{'.'.join(m.suffix_types)}"
                         + (f"-{m.op}" if m.op else ""))
def test_batched_equals_per_warp(m):
    mem = Memory(1 << 16, seed=len(m.shape) + len(m.atype))
    al, bl = m.alayouts[0], m.blayouts[-1]
    regs = {}
    for matrix, t, lay in (("a", m.atype, al), ("b", m.btype, bl), ("c", m.ctype, "row")):
        fs = spec.fragment(m.shape, matrix, t)
        stride = fs.default_stride(lay) * 2
        bases = [1024 * (1 + 3 * w) for w in range(NW)]
        op, per_warp = _load_warps(mem, matrix, t, lay, m.shape, bases, stride)
        got = batched.load(op, lambda a, n: mem.read(a, n), np.array(bases), np.full(NW * 32, stride), TARGET)
        assert np.array_equal(got, per_warp)
        regs[matrix] = per_warp
    op = _mma_opcode(m, al, bl)
    got = batched.mma(op, regs["a"], regs["b"], regs["c"], TARGET)
    if got is None:                      # f64 (exact rounding per element) and xor.popc
        assert m.atype == "f64" or m.op == "xor.popc"
        return
    want = np.stack([wmma.mma(op, regs["a"][w], regs["b"][w], regs["c"][w], TARGET)
                     for w in range(NW)])
    assert np.array_equal(got, want)
    # store D both ways into two copies of the memory
    sop = f"wmma.store.d.sync.aligned.row.{m.shape}.{m.dtype}"
    bases = [40000 + 2048 * w for w in range(NW)]
    one, many = Memory(1 << 16, seed=1), Memory(1 << 16, seed=1)
    for w in range(NW):
        wmma.store(sop, one.write, bases[w], None, got[w], TARGET)
    assert batched.store(sop, many.write, np.array(bases), None, got, TARGET)
    assert np.array_equal(one.buf, many.buf)


def test_batched_declines_where_per_warp_raises():
    mem = Memory(1 << 14)
    op = "wmma.load.a.sync.aligned.row.m16n16k16.f16"
    read = lambda a, n: mem.read(a, n)                           # noqa: E731
    with pytest.raises(WmmaError):
        wmma.load(op, read, 2, None, TARGET)                      # misaligned
    assert batched.load(op, read, np.array([0, 2]), None, TARGET) is None
    assert batched.load(op, read, np.array([0, 64]), np.array([16] * 32 + [24] * 32), TARGET) is None
    lanes = np.zeros(64, np.int64)
    lanes[40] = 64
    assert batched.uniform(lanes) is None and np.array_equal(batched.uniform(np.zeros(64)), [0, 0])
    # replicated copies that disagree: per-warp raises, batched declines
    a = wmma.load(op, read, 0, None, TARGET)
    bad = a.copy()
    bad[0, 0] ^= 1                                              # one copy of an element
    c = wmma.load("wmma.load.c.sync.aligned.row.m16n16k16.f32", read, 0, None, TARGET)
    mop = "wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32"
    try:
        wmma.mma(mop, bad, a, c, TARGET)
        raised = False
    except WmmaError:
        raised = True
    got = batched.mma(mop, np.stack([a, bad]), np.stack([a, a]), np.stack([c, c]), TARGET)
    assert (got is None) == raised
