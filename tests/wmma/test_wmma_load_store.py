"""wmma.load / wmma.store against a bit-level memory reference, over every legal combination."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ptxld import wmma
from ptxld.spec import wmma as spec
from ptxld.wmma import WmmaError, all_layouts
from wmma_helpers import Fault, Memory, element_bit_offset, extent_bytes

LOADABLE = [l for l in all_layouts() if l.matrix in "abc"]
ACCUMULATORS = [l for l in all_layouts() if l.matrix == "c"
                and spec.is_legal(l.shape, "d", l.type)]


def opcode(op, lay, permute=None):
    quals = [lay.matrix, "sync", "aligned", lay.layout, lay.shape, lay.type]
    if permute is not None:  # ptxas accepts any qualifier order
        quals = [quals[i] for i in permute]
    return ".".join(["wmma", op] + quals)


@st.composite
def placements(draw, layouts):
    lay = draw(st.sampled_from(layouts))
    fs = lay.spec
    unit = fs.stride_alignment(lay.layout) * 8 // fs.element_bits  # stride step, elements
    stride = fs.default_stride(lay.layout) + unit * draw(st.integers(0, 3))
    base = fs.address_alignment * draw(st.integers(0, 6))
    pass_stride = draw(st.booleans()) or stride != fs.default_stride(lay.layout)
    perm = draw(st.permutations(range(6)))
    return lay, base, stride, (stride if pass_stride else None), perm


def check_fragment_against_memory(lay, regs, mem, base, stride):
    fs = lay.spec
    bits = fs.element_bits
    assert regs.shape == (32, fs.nregs)
    assert regs.dtype == (np.uint64 if fs.type == "f64" else np.uint32)
    for lane in range(32):
        for reg in range(fs.nregs):
            word = int(regs[lane, reg])
            for slot in range(fs.elements_per_register):
                held = (word >> (slot * bits)) & ((1 << bits) - 1)
                r, c = lay.element(lane, reg, slot)
                expect = mem.get_bits(element_bit_offset(base, r, c, lay.layout, stride, bits),
                                      bits)
                assert held == expect, (lane, reg, slot, r, c)


@settings(max_examples=300, deadline=None)
@given(placements(LOADABLE), st.integers(0, 2 ** 31))
def test_load_matches_memory(placement, seed):
    lay, base, stride, stride_arg, perm = placement
    mem = Memory(base + extent_bytes(lay.spec, lay.layout, stride) + 64, seed)
    regs = wmma.load(opcode("load", lay, perm), mem.read, base, stride_arg, lay.family)
    assert mem.calls == 1  # one vectorised read per instruction
    check_fragment_against_memory(lay, regs, mem, base, stride)


@settings(max_examples=150, deadline=None)
@given(placements(ACCUMULATORS), st.integers(0, 2 ** 31))
def test_load_c_then_store_d_is_identity(placement, seed):
    lay, base, stride, stride_arg, perm = placement
    size = base + extent_bytes(lay.spec, lay.layout, stride) + 64
    mem = Memory(size, seed)
    before = mem.buf.copy()
    regs = wmma.load(opcode("load", lay), mem.read, base, stride_arg, lay.family)
    d = wmma.parse(opcode("store", lay).replace(".c.", ".d."))
    wmma.store(d, mem.write, base, stride_arg, regs, lay.family)
    assert (mem.buf == before).all()
    # Into zeroed memory: exactly the matrix elements appear, nothing else is written.
    fresh = Memory(size, fill="zero")
    wmma.store(d, fresh.write, base, stride_arg, regs, lay.family)
    expected = Memory(size, fill="zero")
    rows, cols = lay.dims
    bits = lay.spec.element_bits
    for r in range(rows):
        for c in range(cols):
            off = element_bit_offset(base, r, c, lay.layout, stride, bits)
            expected.put_bits(off, bits, mem.get_bits(off, bits))
    assert (fresh.buf == expected.buf).all()


@pytest.mark.parametrize("lay", [l for l in LOADABLE if l.replication > 1],
                         ids=lambda l: l.name.replace(" ", ""))
def test_replicated_copies_agree_after_load(lay):
    fs = lay.spec
    mem = Memory(extent_bytes(fs, lay.layout, fs.default_stride(lay.layout)), seed=7)
    regs = wmma.load(opcode("load", lay), mem.read, 0, None, lay.family)
    rows, cols = lay.dims
    for r in range(rows):
        for c in range(cols):
            copies = {(int(regs[ln, rg]) >> (sl * 16)) & 0xFFFF for ln, rg, sl in lay.holders(r, c)}
            assert len(copies) == 1


# ---- checks ----------------------------------------------------------------------------------
A_F16 = "wmma.load.a.sync.aligned.row.m16n16k16.f16"


def test_stride_below_default_is_rejected():
    mem = Memory(4096)
    with pytest.raises(WmmaError, match="below the default 16"):
        wmma.load(A_F16, mem.read, 0, 8, "sm_80")


def test_misaligned_address_and_stride():
    mem = Memory(4096)
    with pytest.raises(WmmaError, match="not 32-byte aligned"):
        wmma.load(A_F16, mem.read, 16, None, "sm_80")
    with pytest.raises(WmmaError, match="multiple of 32 bytes"):
        wmma.load(A_F16, mem.read, 0, 24, "sm_80")  # 48 bytes per row
    wmma.load(A_F16, mem.read, 32, 32, "sm_80")  # aligned: fine
    # the 16-byte cap for the replicated .m8n32k16 A stored column-major
    a = "wmma.load.a.sync.aligned.col.m8n32k16.f16"
    wmma.load(a, mem.read, 0, 8, "sm_80")
    wmma.load(a, mem.read, 0, 16, "sm_80")
    with pytest.raises(WmmaError, match="multiple of 16 bytes"):
        wmma.load(a, mem.read, 0, 12, "sm_80")


def test_read_faults_propagate():
    mem = Memory(100)
    with pytest.raises(Fault):
        wmma.load(A_F16, mem.read, 0, None, "sm_80")


def test_store_rejects_wrong_register_shape():
    mem = Memory(4096)
    with pytest.raises(WmmaError, match=r"shape \(32, 8\)"):
        wmma.store("wmma.store.d.sync.aligned.row.m16n16k16.f32", mem.write, 0, None,
                   np.zeros((32, 4), np.uint32), "sm_80")


def test_float_registers_are_taken_bit_for_bit():
    mem = Memory(4096, seed=3)
    c = "wmma.load.c.sync.aligned.row.m16n16k16.f32"
    regs = wmma.load(c, mem.read, 0, None, "sm_80")
    out = Memory(4096, fill="zero")
    wmma.store(c.replace(".c.", ".d.").replace("load", "store"), out.write, 0, None,
               regs.view(np.float32), "sm_80")
    assert (out.buf[:1024] == mem.buf[:1024]).all()


def test_check_uniform():
    p = np.full(32, 0x1000)
    assert wmma.check_uniform(p, np.full(32, 16)) == (0x1000, 16)
    assert wmma.check_uniform(p) == (0x1000, None)
    p2 = p.copy()
    p2[[3, 17]] = 0x2000
    with pytest.raises(WmmaError, match=r"same p.*lanes 3, 17 differ"):
        wmma.check_uniform(p2)
    s = np.full(32, 16)
    s[31] = 32
    with pytest.raises(WmmaError, match=r"same stride.*lanes 31"):
        wmma.check_uniform(p, s)
    active = np.ones(32, bool)
    active[5] = False
    with pytest.raises(WmmaError, match="lanes 5 are inactive"):
        wmma.check_uniform(p, active=active)


@pytest.mark.parametrize("bad,message", [
    ("wmma.load.a.aligned.row.m16n16k16.f16", "sync is mandatory"),
    ("wmma.load.a.sync.aligned.col.m8n8k32.s4", "must be .row"),
    ("wmma.load.b.sync.aligned.row.m8n8k128.b1", "must be .col"),
    ("wmma.load.c.sync.aligned.row.m16n16k8.f16", "no .c fragment"),
    ("wmma.load.a.sync.aligned.row.m16n16k16.shared::cluster.f16", "not allowed"),
    ("wmma.load.a.sync.aligned.row.m16n16k16.cg.f16", "unknown qualifier"),
    ("wmma.load.d.sync.aligned.row.m16n16k16.f32", "not .d"),
    ("wmma.store.c.sync.aligned.row.m16n16k16.f32", "not .c"),
    ("wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.u4.s32", "no wmma.mma"),
    ("wmma.mma.sync.aligned.col.col.m8n8k32.s32.s4.s4.s32", "needs .row.col"),
    ("wmma.mma.sync.aligned.row.col.m16n16k16.rz.f32.f32", "only on .f64"),
])
def test_parse_errors(bad, message):
    with pytest.raises(WmmaError, match=message):
        wmma.parse(bad)


def test_parse_accepts_ptxas_orders_and_extras():
    a = wmma.parse("wmma.load.a.row.m16n16k16.sync.aligned.f16")  # ptxas §A8 (222)
    b = wmma.parse("wmma.load.a.sync.aligned.m16n16k16.global.row.f16")  # manual example
    c = wmma.parse("wmma.load.a.sync.aligned.row.m16n16k16.global.v8.f16")  # ptxas §A12
    assert (a.layout, a.shape, b.space, c.space) == ("row", "m16n16k16", "global", "global")
    old = wmma.parse("wmma.load.a.sync.row.m16n16k16.f16")
    assert not old.aligned and old.requirements().ptx_below == (6, 3)
    assert wmma.parse("wmma.load.a.sync.aligned.row.m16n16k16.shared::cta.f16") \
        .requirements().gate.min_ptx == (7, 8)
