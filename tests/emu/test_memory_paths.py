"""Memory accesses on the emulator's fast paths, against what the PTX ISA says they do: shared
accesses inside the CTA's window (each CTA its own bytes, the bound exact to the byte), generic
addresses all in one window and mixed across windows, and .local accesses in a kernel without
.local variables (out of bounds, as every .local address is then)."""
from __future__ import annotations

import numpy as np
import pytest

import ptxld
from ptxld import emu

HEAD = """.version 8.3
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 q)
{
.reg .pred %p<4>;
.reg .b32 %r<16>;
.reg .b64 %rd<16>;
.shared .align 4 .b8 s[256];
ld.param.u64 %rd1, [p];
ld.param.u64 %rd2, [q];
mov.u32 %r1, %tid.x;
mov.u32 %r2, %ctaid.x;
mad.lo.u32 %r3, %r2, 64, %r1;
mul.wide.u32 %rd3, %r3, 4;
add.s64 %rd4, %rd1, %rd3;
"""


def kernel(body: str):
    return ptxld.RawModule(code=HEAD + body + "\nret;\n}\n").get_function("k")


def test_each_cta_has_its_own_shared_bytes():
    # thread t of CTA c writes c*1000 + t at s[4*t], then reads s[4*(63-t)] back
    k = kernel("""mov.u32 %r4, s;
shl.b32 %r5, %r1, 2;
add.u32 %r6, %r4, %r5;
mad.lo.u32 %r7, %r2, 1000, %r1;
st.shared.u32 [%r6], %r7;
bar.sync 0;
sub.u32 %r8, 63, %r1;
shl.b32 %r8, %r8, 2;
add.u32 %r8, %r4, %r8;
ld.shared.u32 %r9, [%r8];
st.global.u32 [%rd4], %r9;""")
    out = np.zeros(3 * 64, np.int32)
    k(3, 64, [out, np.zeros(1, np.int32)])
    want = (np.arange(3)[:, None] * 1000 + (63 - np.arange(64))[None, :]).reshape(-1)
    assert np.array_equal(out, want)


@pytest.mark.parametrize("offset,ok", [(252, True), (253, False), (256, False)])
def test_shared_bound_is_exact(offset, ok):
    # a 4-byte access at byte 252 of a 256-byte window is the last one in bounds; 253 is also
    # misaligned, which the ISA faults first
    k = kernel(f"""mov.u32 %r4, s;
add.u32 %r4, %r4, {offset};
ld.shared.u32 %r9, [%r4];
st.global.u32 [%rd4], %r9;""")
    args = [np.zeros(64, np.int32), np.zeros(1, np.int32)]
    if ok:
        k(1, 64, args)
    else:
        with pytest.raises((emu.OutOfBoundsError, emu.MisalignedAddressError)):
            k(1, 64, args)


def test_generic_addresses_in_one_window_and_across_windows():
    # even threads point at shared memory, odd ones at the global buffer q; both hold 7 * tid
    k = kernel("""mov.u32 %r4, s;
shl.b32 %r5, %r1, 2;
add.u32 %r6, %r4, %r5;
mul.lo.u32 %r7, %r1, 7;
st.shared.u32 [%r6], %r7;
bar.sync 0;
cvt.u64.u32 %rd6, %r6;
cvta.shared.u64 %rd5, %rd6;
mul.wide.u32 %rd7, %r1, 4;
add.s64 %rd8, %rd2, %rd7;
and.b32 %r10, %r1, 1;
setp.eq.u32 %p1, %r10, 1;
@%p1 mov.b64 %rd5, %rd8;
ld.u32 %r9, [%rd5];
st.global.u32 [%rd4], %r9;""")
    q = (np.arange(64) * 7).astype(np.int32)
    out = np.zeros(64, np.int32)
    k(1, 64, [out, q])
    assert np.array_equal(out, np.arange(64) * 7)
    k2 = kernel("""mov.u32 %r4, s;
shl.b32 %r5, %r1, 2;
add.u32 %r6, %r4, %r5;
st.shared.u32 [%r6], %r1;
bar.sync 0;
cvt.u64.u32 %rd6, %r6;
cvta.shared.u64 %rd5, %rd6;
ld.u32 %r9, [%rd5];
st.global.u32 [%rd4], %r9;""")
    out = np.zeros(64, np.int32)
    k2(1, 64, [out, q])
    assert np.array_equal(out, np.arange(64))


def test_local_access_without_local_variables_is_out_of_bounds():
    k = kernel("""ld.local.u32 %r9, [0];
st.global.u32 [%rd4], %r9;""")
    with pytest.raises(emu.OutOfBoundsError) as e:
        k(1, 32, [np.zeros(32, np.int32), np.zeros(1, np.int32)])
    assert ".local" in str(e.value)


@pytest.mark.parametrize("span", [10, 70_000, 5_000_000_000, 1 << 40])
def test_stable_order_is_a_stable_argsort(span):
    from ptxld.emu.memory import stable_order
    rng = np.random.default_rng(span)
    keys = rng.integers(0, span, 5000) + (1 << 20)
    keys[::7] = keys[3]                             # many equal keys: stability matters
    assert np.array_equal(stable_order(keys), np.argsort(keys, kind="stable"))


def test_shared_atomic_add_returns_old_values_in_thread_order():
    # every thread of 3 CTAs adds (tid % 5 + 1) to one of 4 counters; old values per thread
    k = kernel("""mov.u32 %r4, s;
and.b32 %r5, %r1, 3;
shl.b32 %r5, %r5, 2;
add.u32 %r6, %r4, %r5;
rem.u32 %r7, %r1, 5;
add.u32 %r7, %r7, 1;
atom.shared.add.u32 %r8, [%r6], %r7;
st.global.u32 [%rd4], %r8;""")
    out = np.zeros(3 * 64, np.int32)
    k(3, 64, [out, np.zeros(1, np.int32)])
    t = np.arange(64)
    want = np.zeros(64, np.int64)
    for c in range(4):                              # threads in order, per counter
        sel = t[(t & 3) == c]
        inc = sel % 5 + 1
        want[sel] = np.cumsum(inc) - inc
    assert np.array_equal(out, np.tile(want, 3))


@pytest.mark.parametrize("vec,width", [(2, 32), (4, 32), (2, 64), (4, 16)])
def test_vector_gather_and_scatter_as_rows(vec, width):
    """Aligned vector accesses read and write whole rows; the later thread wins where two write
    the same vector (thread order), and misaligned starts take the element-wise path."""
    from ptxld.emu.memory import gather, scatter
    dt = {16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
    wb = width // 8
    backing = np.arange(256 * wb, dtype=np.uint8)
    v = backing.view(dt)
    rng = np.random.default_rng(vec * width)
    starts = rng.integers(0, len(v) // vec - 1, 40) * vec
    idx = (starts * wb).astype(np.intp)
    got = gather([(backing, idx, None)], 40, width, vec)
    assert np.array_equal(got, v[starts[:, None] + np.arange(vec)])
    odd = idx + wb                                           # not vector-aligned: element-wise
    assert np.array_equal(gather([(backing, odd, None)], 40, width, vec),
                          v[starts[:, None] + 1 + np.arange(vec)])
    vals = rng.integers(0, 1000, (40, vec)).astype(dt)
    before = v.copy()
    scatter([(backing, idx, None)], vals, width, vec)
    want = before.copy()
    for t in range(40):                                      # thread order: later threads win
        want[starts[t]:starts[t] + vec] = vals[t]
    assert np.array_equal(v, want)
