"""The fast float64 round-to-odd arithmetic (alu/fastround.py) equals the exact reference
(floating.arith_exact: rounding.round_to_grid over 2Sum pairs) bit for bit.

Inputs mix uniformly random bit patterns (NaN payloads, infinities, subnormals, huge values)
with values built to sit on the cases double rounding gets wrong: sums whose exact value lies a
hair beside a grid point or a midpoint of the destination format (fma products like
2^k (1 + m u)(1 - m u) added to a value half an ulp away, addends 20 to 80 binades apart),
exact ties, overflow at the edge of the format, results in and around the subnormal range, and
exact zero sums (signs of zero in every mode)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ptxld.emu.alu import floating
from ptxld.emu.alu import rounding

FMTS = {"f32": rounding.F32, "f16": rounding.F16, "bf16": rounding.BF16}
MODES = ("rn", "rz", "rm", "rp")
DT = {"f32": np.uint32, "f16": np.uint16, "bf16": np.uint16}
# NaN and overflow arise on purpose; the emulator silences these warnings per instruction
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _to_bits(v: np.ndarray, fmt: str) -> np.ndarray:
    """float64 values (exact in the format, or rounded to nearest) -> raw bits."""
    if fmt == "f32":
        return v.astype(np.float32).view(np.uint32)
    if fmt == "f16":
        return v.astype(np.float16).view(np.uint16)
    return (v.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def operands(fmt: str, kind: str, seed: int, n: int = 600) -> list[np.ndarray]:
    f = FMTS[fmt]
    rng = np.random.default_rng(seed)
    bits = 8 * np.dtype(DT[fmt]).itemsize
    nsrc = 3 if kind == "fma" else 2
    cols = [rng.integers(0, 1 << bits, n, dtype=np.uint64).astype(DT[fmt]) for _ in range(nsrc)]
    u = 2.0 ** (1 - f.p)                                  # ulp of 1
    k = n // 6
    # y: random values, a quarter of them subnormal; exponent E (value in [2^E, 2^(E+1)))
    lo = np.where(rng.random(k) < 0.25, f.emin - f.p + 2, f.emin + 2)
    y = rng.uniform(1, 2, k) * 2.0 ** rng.integers(lo, f.emax - 1, k)
    y = rounding.decode(_to_bits(y * rng.choice([-1, 1], k), fmt), f)
    e = np.maximum(np.floor(np.log2(np.abs(y))), f.emin)
    half = 2.0 ** (e - f.p)                               # half an ulp of y
    m = rng.integers(1, 8, k)
    sgn = rng.choice([-1.0, 1.0], k)
    if kind == "fma":
        # a*b = half * (1 + m u)(1 - m u) = half (1 - m^2 u^2): just below the midpoint
        split = rng.integers(-4, 5, k)
        a = (1 + m * u) * 2.0 ** (np.floor(e / 2) - f.p // 2 + split)
        b = sgn * (1 - m * u) * half / 2.0 ** (np.floor(e / 2) - f.p // 2 + split)
        c = y
        part = [a, b, c]
    else:
        # x = +-half, +-half (1 +- m u), or a value 20..80 binades below y
        far = (1 + m * u) * 2.0 ** (e - rng.integers(20, 80, k))
        choice = rng.integers(0, 3, k)
        x = np.where(choice == 0, half, np.where(choice == 1, half * (1 + sgn * m * u), far))
        x = np.maximum(x, 2.0 ** (f.emin - f.p + 1)) * rng.choice([-1.0, 1.0], k)
        part = [y, x] if kind == "add" else [y, -x]
    for col, vals in zip(cols, part):
        col[:k] = _to_bits(np.asarray(vals, np.float64), fmt)
    # near overflow and in the subnormal range
    big = f.max_finite * rng.uniform(0.5, 1, k)
    tiny = 2.0 ** (f.emin - rng.integers(0, f.p + 2, k)) * rng.uniform(1, 2, k)
    for j, col in enumerate(cols):
        col[k:2 * k] = _to_bits(big * rng.choice([-1, 1], k), fmt)
        col[2 * k:3 * k] = _to_bits(tiny * rng.choice([-1, 1], k), fmt)
    if kind == "fma":
        cols[1][k:2 * k] = _to_bits(rng.uniform(1, 2.2, k), fmt)      # products past max
    # exact zero sums: y + (-y), +-0 + +-0
    z = slice(3 * k, 4 * k)
    cols[0][z] = cols[-1][z] ^ DT[fmt](1 << (bits - 1)) if kind != "sub" else cols[-1][z]
    zero = rng.integers(0, 2, k).astype(DT[fmt]) << DT[fmt](bits - 1)
    if kind == "fma":
        one = _to_bits(np.ones(k), fmt)
        cols[1][z] = one
        cols[0][3 * k:3 * k + k // 2] = zero[:k // 2]
    else:
        cols[0][3 * k:3 * k + k // 2] = zero[:k // 2]
        cols[1][3 * k:3 * k + k // 2] = zero[::-1][:k // 2]
    return cols


CASES = [(fmt, kind, mode) for fmt in FMTS for kind in ("add", "sub", "mul", "fma") for mode in MODES]


@pytest.mark.parametrize("fmt,kind,mode", CASES)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_fast_equals_exact(fmt, kind, mode, seed):
    f = FMTS[fmt]
    cols = operands(fmt, kind, seed)
    fast = floating.arith(kind, f, mode)(*cols)
    exact = floating.arith_exact(kind, f, mode)(*cols)
    bad = np.flatnonzero(fast != exact)
    assert not len(bad), (f"{kind}.{mode}.{fmt}: {len(bad)} differ; first operands "
                          f"{[hex(int(c[bad[0]])) for c in cols]}: fast {hex(int(fast[bad[0]]))}, "
                          f"exact {hex(int(exact[bad[0]]))}")


FLAGS = [("f32", {"ftz": True}), ("f32", {"sat": True}), ("f32", {"ftz": True, "sat": True}),
         ("f16", {"ftz": True}), ("f16", {"sat": True}), ("f16", {"relu": True}),
         ("bf16", {"relu": True}), ("f16", {"ftz": True, "relu": True})]


@pytest.mark.parametrize("fmt,flags", FLAGS)
@pytest.mark.parametrize("kind", ["add", "mul", "fma"])
@settings(max_examples=2, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), mode=st.sampled_from(MODES))
def test_fast_equals_exact_with_flags(fmt, flags, kind, seed, mode):
    if flags.get("relu") and kind != "fma":
        flags = {k: v for k, v in flags.items() if k != "relu"} or {"sat": True}
    f = FMTS[fmt]
    cols = operands(fmt, kind, seed)
    fast = floating.arith(kind, f, mode, **flags)(*cols)
    exact = floating.arith_exact(kind, f, mode, **flags)(*cols)
    assert np.array_equal(fast, exact), np.flatnonzero(fast != exact)[:5]


def test_operands_reach_the_hard_cases():
    """The generator does produce inexact float64 sums, exact ties and exact zero sums (else the
    equality above would prove little)."""
    cols = operands("f32", "fma", 7)
    a, b, c = (rounding.decode(x, rounding.F32) for x in cols)
    p = a * b
    s = p + c
    err = np.where(np.isfinite(s), (p - (s - (s - p))) + (c - (s - p)), 0)
    assert (err != 0).sum() > 50                          # RN64 rounded: hazards present
    assert ((s == 0) & np.isfinite(p)).sum() > 20
    cols = operands("f16", "add", 7)
    x, y = (rounding.decode(v, rounding.F16) for v in cols)
    s = x + y
    on_mid = (s.view(np.int64) & ((1 << 42) - 1)) == (1 << 41)
    assert on_mid.sum() > 5


def float64_values(fmt: str, seed: int, n: int = 800) -> np.ndarray:
    """Arbitrary float64 values around ``fmt``'s grid: random bit patterns (NaN payloads,
    infinities), grid points and midpoints nudged by one float64 ulp either way, values past the
    largest finite one and in the subnormal range."""
    f = FMTS[fmt]
    rng = np.random.default_rng(seed)
    k = n // 4
    out = rng.integers(0, 1 << 64, n, dtype=np.uint64).view(np.float64).copy()
    grid = rounding.decode(rng.integers(0, 1 << (8 * np.dtype(DT[fmt]).itemsize), k).astype(DT[fmt]), f)
    e = np.maximum(np.floor(np.log2(np.abs(np.where(np.isfinite(grid) & (grid != 0), grid, 1.0)))), f.emin)
    mid = grid + np.copysign(2.0 ** (e - f.p), grid) * rng.integers(0, 2, k)
    out[:k] = np.nextafter(mid, np.where(rng.integers(0, 3, k) == 0, -np.inf, np.inf))
    out[:k] = np.where(rng.integers(0, 3, k) == 0, mid, out[:k])
    out[k:2 * k] = f.max_finite * rng.uniform(0.99, 1.01, k) * rng.choice([-1, 1], k)
    out[2 * k:3 * k] = 2.0 ** (f.emin - rng.uniform(-1, f.p + 1, k)) * rng.choice([-1, 1], k)
    return out


@pytest.mark.parametrize("fmt", list(FMTS))
@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_round_once_equals_round_to_grid(fmt, mode, seed):
    """div/sqrt/approx results (float64 values) rounded once: the cast-and-step path equals
    round_to_grid, NaN for NaN."""
    f = FMTS[fmt]
    v = float64_values(fmt, seed)
    with np.errstate(all="ignore"):
        fast = floating.round_once(v, f, mode)
        exact = rounding.round_to_grid(v, None, f, mode)
    both_nan = np.isnan(fast) & np.isnan(exact)
    same = (fast.view(np.uint64) == exact.view(np.uint64)) | both_nan
    assert same.all(), (v[~same][:3], fast[~same][:3], exact[~same][:3])


@pytest.mark.parametrize("mode", MODES)
def test_nan_payloads_stay_nan_in_bf16(mode):
    """A float64 NaN whose float32 bits are all ones: bf16's rounding carry must not wrap it
    to zero."""
    v = np.array([np.uint64(0xFFFFFFFFFFFFFFFF), np.uint64(0x7FFFFFFFFFFFFFFF)]).view(np.float64)
    assert np.isnan(floating.round_once(v, rounding.BF16, mode)).all()
