"""Integer-arithmetic and synchronisation kernels of the corpus, with NumPy references:
`CASES_ARITH` (sources tests/kernels/cuda/arith_*.cu, PTX for sm_80 and sm_90).

Plain data and NumPy only, like cases.py (whose Case, comparison modes and launch conventions
apply). Every reference computes what the CUDA source asks for from the inputs, with Python's
unbounded integers where the kernel works in 128 bits, and from the definitions the CUDA math
API (the __v*2/__v*4 and __dp*a intrinsics) and the PTX ISA (video instructions, cvt.pack,
bmsk, szext; exited lanes take no part in vote/shfl/match/redux) give. The synchronisation
kernels (spin lock, ticket lock, flag) record only results that do not depend on the order in
which threads won the race.
"""
from __future__ import annotations

import numpy as np

from cases import EXACT, Case, _dim3, _rng

CASES_ARITH: list[Case] = []
ARCHS = ("sm_80", "sm_90")
M64, M128 = (1 << 64) - 1, (1 << 128) - 1


def add(**kw) -> None:
    kw["grid"] = _dim3(kw["grid"])
    kw["block"] = _dim3(kw["block"])
    kw.setdefault("ptx", tuple(f"ptx/{a}/{kw['source'].removesuffix('.cu')}.ptx" for a in ARCHS))
    kw["outputs"] = tuple(kw["outputs"])
    kw["compare"] = tuple(kw.get("compare", [EXACT] * len(kw["outputs"])))
    CASES_ARITH.append(Case(**kw))


# ---- 128-bit integers ----------------------------------------------------------------------

N128 = 256


def _words(n: int, salt: int) -> np.ndarray:
    """n 128-bit values as (n, 2) uint64 words: random, with all-ones and zero words mixed in so
    that carries and borrows ripple."""
    r = np.random.default_rng(salt)
    w = r.integers(0, 2**64, (n, 2), dtype=np.uint64)
    edge = r.random((n, 2))
    w[edge < 0.15] = np.uint64(M64)
    w[(edge >= 0.15) & (edge < 0.25)] = 0
    return w.reshape(-1)


def _ints(words: np.ndarray) -> list[int]:
    w = words.reshape(-1, 2)
    return [int(lo) | int(hi) << 64 for lo, hi in w]


def _pack(values) -> np.ndarray:
    return np.array([[v & M64, (v >> 64) & M64] for v in values], np.uint64).reshape(-1)


def _u128_args(k: int):
    return [_words(N128, 11 * k + j) for j in range(3)]


add(name="arith_u128_add", source="arith_int128.cu", entry="arith_u128_add", grid=2, block=128,
    make_args=lambda: [*_u128_args(1)[:2], np.zeros(2 * N128, np.uint64), np.int32(N128)],
    reference=lambda a: [_pack((x + y) & M128 for x, y in zip(_ints(a[0]), _ints(a[1])))],
    outputs=[2])

add(name="arith_u128_mul", source="arith_int128.cu", entry="arith_u128_mul", grid=2, block=128,
    make_args=lambda: [*_u128_args(2)[:2], np.zeros(2 * N128, np.uint64), np.int32(N128)],
    reference=lambda a: [_pack((x * y) & M128 for x, y in zip(_ints(a[0]), _ints(a[1])))],
    outputs=[2])


def _mad_sub_ref(a):
    xs, ys, zs = _ints(a[0]), _ints(a[1]), _ints(a[2])
    return [_pack((x * y - z) & M128 for x, y, z in zip(xs, ys, zs)),
            np.array([x < z for x, z in zip(xs, zs)], np.uint32)]


add(name="arith_u128_mad_sub", source="arith_int128.cu", entry="arith_u128_mad_sub", grid=2, block=128,
    make_args=lambda: [*_u128_args(3), np.zeros(2 * N128, np.uint64), np.zeros(N128, np.uint32),
                       np.int32(N128)],
    reference=_mad_sub_ref, outputs=[3, 4])

STEPS = 37
add(name="arith_u128_series", source="arith_int128.cu", entry="arith_u128_series", grid=2, block=128,
    make_args=lambda: [_u128_args(4)[0], np.zeros(2 * N128, np.uint64), np.int32(N128), np.int32(STEPS)],
    reference=lambda a: [_pack((x * (STEPS * (STEPS + 1) // 2)) & M128 for x in _ints(a[0]))],
    outputs=[1])


# ---- SIMD video, dot products, packing -------------------------------------------------------

NV = 512


def _lanes(x: np.ndarray, bits: int, signed: bool = False) -> list[np.ndarray]:
    """The 8- or 16-bit lanes of 32-bit words, lane 0 first, as int64."""
    x = x.astype(np.int64)
    out = []
    for k in range(32 // bits):
        v = (x >> (bits * k)) & ((1 << bits) - 1)
        out.append(np.where(v >= 1 << (bits - 1), v - (1 << bits), v) if signed else v)
    return out


def _join(lanes: list[np.ndarray], bits: int) -> np.ndarray:
    out = np.zeros(lanes[0].shape, np.int64)
    for k, v in enumerate(lanes):
        out |= (v & ((1 << bits) - 1)) << (bits * k)
    return out.astype(np.uint32)


def _video_words():
    r = _rng()
    w = r.integers(0, 2**32, (3, NV), dtype=np.uint64).astype(np.uint32)
    w[:, :32] = r.choice(np.array([0, 0xFF, 0x80, 0x7F, 0xFFFFFFFF, 0x80808080, 0x7F7F7F7F, 0x01010101],
                                  np.uint32), (3, 32))
    return w


def _simd_intrinsics_ref(a):
    x, y = a[0], a[1]
    b = lambda v: _lanes(v, 8)  # noqa: E731
    h = lambda v: _lanes(v, 16)  # noqa: E731
    out = np.zeros((NV, 8), np.uint32)
    out[:, 0] = _join([p + q for p, q in zip(b(x), b(y))], 8)                      # __vadd4
    out[:, 1] = _join([abs(p - q) for p, q in zip(b(x), b(y))], 8)                 # __vabsdiffu4
    out[:, 2] = _join([np.maximum(p, q) for p, q in zip(h(x), h(y))], 16)          # __vmaxu2
    out[:, 3] = _join([p - q for p, q in zip(h(x), h(y))], 16)                     # __vsub2
    out[:, 4] = _join([(p + q + 1) >> 1 for p, q in zip(b(x), b(y))], 8)           # __vavgu4
    out[:, 5] = _join([np.where(p > q, 0xFF, 0) for p, q in zip(b(x), b(y))], 8)   # __vcmpgtu4
    out[:, 6] = _join([np.minimum(p, q) for p, q in zip(b(x), b(y))], 8)           # __vminu4
    out[:, 7] = sum(abs(p - q) for p, q in zip(b(x), b(y))).astype(np.uint32)      # __vsadu4
    return [out.reshape(-1)]


add(name="arith_simd_intrinsics", source="arith_video.cu", entry="arith_simd_intrinsics", grid=4,
    block=128, make_args=lambda: [*_video_words()[:2], np.zeros(8 * NV, np.uint32), np.int32(NV)],
    reference=_simd_intrinsics_ref, outputs=[2])


def _clamp(v, lo, hi):
    return np.minimum(np.maximum(v, lo), hi)


def _video_asm_ref(a):
    """PTX ISA 9.7.18: SIMD operands default to a's bytes (.b3210) and b's (.b7654), every lane
    of the mask; the scalar forms select, extend, operate, then combine with c."""
    x, y, z = a[0], a[1], a[2]
    out = np.zeros((NV, 8), np.uint32)
    bu, bs = (lambda v: _lanes(v, 8)), (lambda v: _lanes(v, 8, True))
    hu, hs = (lambda v: _lanes(v, 16)), (lambda v: _lanes(v, 16, True))
    out[:, 0] = _join([_clamp(p + q, 0, 255) for p, q in zip(bu(x), bu(y))], 8)
    out[:, 1] = ((z.astype(np.int64) + sum(abs(p - q) for p, q in zip(bu(x), bu(y)))) & 0xFFFFFFFF).astype(np.uint32)
    out[:, 2] = _join([np.maximum(p, q) for p, q in zip(hs(x), hs(y))], 16)
    sub = [_clamp(p - q, -128, 127) for p, q in zip(bs(x), bs(y))]
    cz = bu(z)
    out[:, 3] = _join([sub[0], cz[1], sub[2], cz[3]], 8)                            # mask .b20
    out[:, 4] = (((x.astype(np.int64) >> 8) & 0xFF) + (y.astype(np.int64) & 0xFFFF)).astype(np.uint32)
    out[:, 5] = ((z.astype(np.int64) + sum((p > q).astype(np.int64) for p, q in zip(bu(x), bu(y))))
                 & 0xFFFFFFFF).astype(np.uint32)
    out[:, 6] = _join([(p + q + 1) >> 1 for p, q in zip(hu(x), hu(y))], 16)
    sa, sb = bs(x)[0], bs(y)[2]
    zc = z.astype(np.int64)
    zc = np.where(zc >= 1 << 31, zc - (1 << 32), zc)
    out[:, 7] = (np.maximum(np.minimum(sa, sb), zc) & 0xFFFFFFFF).astype(np.uint32)
    return [out.reshape(-1)]


add(name="arith_video_asm", source="arith_video.cu", entry="arith_video_asm", grid=4, block=128,
    make_args=lambda: [*_video_words(), np.zeros(8 * NV, np.uint32), np.int32(NV)],
    reference=_video_asm_ref, outputs=[3])


def _dot_ref(a):
    x, y, c = (v.view(np.uint32) for v in a[:3])
    cs = c.view(np.int32).astype(np.int64)
    out = np.zeros((NV, 4), np.int64)
    out[:, 0] = cs + sum(p * q for p, q in zip(_lanes(x, 8, True), _lanes(y, 8, True)))
    out[:, 1] = c.astype(np.int64) + sum(p * q for p, q in zip(_lanes(x, 8), _lanes(y, 8)))
    halves, bytes_ = _lanes(x, 16, True), _lanes(y, 8, True)
    out[:, 2] = cs + halves[0] * bytes_[0] + halves[1] * bytes_[1]     # __dp2a_lo: bytes 0, 1
    out[:, 3] = cs + halves[0] * bytes_[2] + halves[1] * bytes_[3]     # __dp2a_hi: bytes 2, 3
    return [(out & 0xFFFFFFFF).astype(np.uint32).view(np.int32).reshape(-1)]


add(name="arith_dot", source="arith_video.cu", entry="arith_dot", grid=4, block=128,
    make_args=lambda: [*(w.view(np.int32) for w in _video_words()), np.zeros(4 * NV, np.int32), np.int32(NV)],
    reference=_dot_ref, outputs=[3])


def _pack_args():
    r = _rng()
    v = r.integers(-400, 400, 4 * NV).astype(np.int32)
    v[::7] = r.integers(-2**31, 2**31, len(v[::7])).astype(np.int32)
    pos = r.integers(0, 40, 2 * NV).astype(np.uint32)
    return [v, pos, np.zeros(6 * NV, np.uint32), np.int32(NV)]


def _pack_ref(a):
    v = a[0].astype(np.int64).reshape(-1, 4)
    p, w = (a[1].astype(np.int64).reshape(-1, 2)[:, k] for k in (0, 1))
    u8 = lambda x: _clamp(x, 0, 255)  # noqa: E731
    lo = u8(v[:, 0]) | u8(v[:, 1]) << 8
    packed = (u8(v[:, 2]) | u8(v[:, 3]) << 8 | lo << 16) & 0xFFFFFFFF
    s16 = (_clamp(v[:, 0], -32768, 32767) & 0xFFFF) | (_clamp(v[:, 1], -32768, 32767) & 0xFFFF) << 16
    # bmsk.clamp: `w` bits from bit `p`; nothing from p >= 32; the mask stops at bit 31
    width = np.minimum(w, 32)
    mask = np.where(p >= 32, 0, ((1 << np.minimum(p + width, 32)) - (1 << np.minimum(p, 32))))
    # szext: keep the low `w` bits and extend the top one of them (signed) or zeros (unsigned);
    # .clamp: w >= 32 keeps the value, .wrap: w modulo 32
    x = v[:, 0] & 0xFFFFFFFF

    def szext(bits, signed):
        low = x & ((1 << bits) - 1)
        top = (low >> np.maximum(bits - 1, 0)) & 1
        ext = np.where(signed & (top == 1) & (bits > 0), low | (0xFFFFFFFF ^ ((1 << bits) - 1)), low)
        return np.where(bits == 0, 0, ext)
    ext = np.where(w >= 32, x, szext(np.minimum(w, 31), True))
    ext_u = szext(w & 31, False)
    out = np.stack([packed, s16, mask, ext, ext_u, lo], axis=1)
    return [(out & 0xFFFFFFFF).astype(np.uint32).reshape(-1)]


add(name="arith_pack_bits", source="arith_video.cu", entry="arith_pack_bits", grid=4, block=128,
    make_args=_pack_args, reference=_pack_ref, outputs=[2])


# ---- a switch as a jump table -----------------------------------------------------------------

NS = 1000


def _switch_ref(a):
    op, x = a[0].astype(np.int64), a[1].astype(np.int64)
    trunc_div = np.where(x < 0, -((-x) // 5), x // 5)
    trunc_rem = np.where(x < 0, -((-x) % 11), x % 11)
    choices = [x + 1, x * 3, x ^ 0x5A5A, x >> 2, x - 7, x * x, ~x, x << 3, trunc_div, trunc_rem,
               x & 0xFF, x | 0x100]
    r = np.select([op == k for k in range(12)], choices, -1)
    return [(r & 0xFFFFFFFF).astype(np.uint32).view(np.int32)]


add(name="arith_switch", source="arith_switch.cu", entry="arith_switch", grid=8, block=128,
    make_args=lambda: [_rng().integers(-2, 14, NS).astype(np.int32),
                       _rng().integers(-10**6, 10**6, NS).astype(np.int32), np.zeros(NS, np.int32),
                       np.int32(NS)],
    reference=_switch_ref, outputs=[2])


# ---- locks and flags across CTAs --------------------------------------------------------------

LOCK_CTAS = 24
add(name="arith_spin_lock", source="arith_sync.cu", entry="arith_spin_lock", grid=LOCK_CTAS, block=64,
    make_args=lambda: [np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(LOCK_CTAS, np.int32)],
    # the plain (non-atomic) counter saw every CTA once: mutual exclusion held, and every
    # spinning CTA got its turn
    reference=lambda a: [np.array([LOCK_CTAS], np.int32)],
    outputs=[1])

TICKETS = 4 * 64
add(name="arith_ticket", source="arith_sync.cu", entry="arith_ticket", grid=4, block=64,
    make_args=lambda: [np.zeros(1, np.uint32), np.zeros(1, np.uint32), np.zeros(1, np.uint32),
                       np.zeros(TICKETS, np.uint32)],
    reference=lambda a: [np.array([TICKETS], np.uint32), np.array([TICKETS], np.uint32),
                         np.array([TICKETS * (TICKETS - 1) // 2], np.uint32),
                         np.cumsum(np.arange(TICKETS, dtype=np.uint64)).astype(np.uint32)],
    outputs=[0, 1, 2, 3])

NF = 300
add(name="arith_flag", source="arith_sync.cu", entry="arith_flag", grid=4, block=128,
    make_args=lambda: [np.zeros(NF, np.int32), np.zeros(1, np.int32), np.zeros(NF, np.int32), np.int32(NF)],
    reference=lambda a: [np.array([1], np.int32), 2 * (3 * np.arange(NF, dtype=np.int32) + 1)],
    outputs=[1, 2])


# ---- warp votes and shuffles with exited lanes ---------------------------------------------

LIVE, NW = 21, 128


def _warp_exited_ref(a):
    x = a[0].astype(np.int64)
    out = np.zeros((NW, 6), np.int64)
    for w0 in range(0, NW, 32):
        v = x[w0:w0 + LIVE]
        lanes = np.arange(LIVE)
        ballot = int(np.sum(((v & 1) << lanes)))
        any_ = int((v > 1000).any())
        total = int(v.sum()) & 0xFFFFFFFF
        for lane in range(LIVE):
            same = int(np.sum((((v & 3) == (v[lane] & 3)).astype(np.int64)) << lanes))
            up = v[lane + 1] if lane + 1 < LIVE else -1
            out[w0 + lane] = [ballot, v[3], up, any_, same, total]
    return [(out & 0xFFFFFFFF).astype(np.uint32).reshape(-1)]


add(name="arith_warp_exited", source="arith_sync.cu", entry="arith_warp_exited", grid=1, block=NW,
    make_args=lambda: [_rng().integers(0, 1100, NW).astype(np.int32), np.int32(LIVE),
                       np.zeros(6 * NW, np.uint32)],
    reference=_warp_exited_ref, outputs=[2])
