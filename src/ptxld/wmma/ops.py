"""Warp-level wmma.load / wmma.store / wmma.mma on NumPy data (contract: package docstring)."""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

import numpy as np

from ptxld.wmma import storage, values
from ptxld.wmma.errors import WmmaError
from ptxld.wmma.layouts import fragment_layout
from ptxld.wmma.params import WmmaMemParams, WmmaMmaParams, coerce

ReadFn = Callable[[np.ndarray, int], np.ndarray]
WriteFn = Callable[[np.ndarray, np.ndarray], None]


def _mem_params(params, kind: str) -> WmmaMemParams:
    p = coerce(params, kind)
    if not isinstance(p, WmmaMemParams) or p.op != kind:
        raise WmmaError(f"wmma.{kind} was given parameters of another instruction: {p}")
    return p


def load(params, read: ReadFn, base_addr: int, stride: int | None, target) -> np.ndarray:
    """wmma.load: the fragment registers of all 32 lanes, shape (32, nregs)."""
    p = _mem_params(params, "load")
    fs = p.fragment
    layout = fragment_layout(target, p.shape, p.matrix, p.type, p.layout)
    stride = storage.resolve_stride(fs, p.layout, stride)
    storage.check_address(fs, base_addr)
    nlines, line_len = storage.line_shape(fs, p.layout)
    nbytes = storage.line_bytes(fs, p.layout)
    raw = np.asarray(read(storage.line_addresses(fs, p.layout, base_addr, stride), nbytes))
    if raw.shape != (nlines, nbytes):
        raise WmmaError(f"read callback returned shape {raw.shape}, expected {(nlines, nbytes)}")
    lines = storage.decode_lines(raw, fs.element_bits, line_len)
    matrix = lines if p.layout == "row" else lines.T
    return values.pack(layout.gather(matrix), fs)


def store(params, write: WriteFn, base_addr: int, stride: int | None, regs,
          target) -> None:
    """wmma.store.d: writes the matrix held by ``regs`` (32, nregs) through ``write``."""
    p = _mem_params(params, "store")
    fs = p.fragment
    layout = fragment_layout(target, p.shape, p.matrix, p.type, p.layout)
    stride = storage.resolve_stride(fs, p.layout, stride)
    storage.check_address(fs, base_addr)
    bits = values.as_register_bits(regs, fs, "wmma.store")
    matrix = layout.scatter(values.unpack(bits, fs))
    lines = matrix if p.layout == "row" else matrix.T
    write(storage.line_addresses(fs, p.layout, base_addr, stride),
          storage.encode_lines(lines, fs.element_bits))


# --------------------------------------------------------------------------------------------
# wmma.mma


def mma(params, a_regs, b_regs, c_regs, target="sm_80") -> np.ndarray:
    """wmma.mma: D = A·B + C for one warp; returns D's registers (32, nregs).

    ``target`` must be the one the fragments were loaded for (layouts depend on it)."""
    p = coerce(params, "mma")
    if not isinstance(p, WmmaMmaParams):
        raise WmmaError(f"wmma.mma was given parameters of another instruction: {p}")
    la = fragment_layout(target, p.shape, "a", p.atype, p.alayout)
    lb = fragment_layout(target, p.shape, "b", p.btype, p.blayout)
    lc = fragment_layout(target, p.shape, "c", p.ctype, "row")  # C/D: layout-independent
    ld = fragment_layout(target, p.shape, "d", p.dtype, "row")
    mats = []
    for lay, regs, name in ((la, a_regs, "A"), (lb, b_regs, "B"), (lc, c_regs, "C")):
        bits = values.as_register_bits(regs, lay.spec, f"wmma.mma operand {name}")
        mats.append(lay.scatter(values.unpack(bits, lay.spec)))
    a, b, c = mats
    if p.atype == "f64":
        d = _f64_mma(a, b, c, p.rounding or "rn")
    elif p.atype in ("f16", "bf16", "tf32"):
        d = _float_mma(p, a, b, c)
    else:
        d = _int_mma(p, a, b, c)
    return values.pack(ld.gather(d), ld.spec)


def _float_mma(p: WmmaMmaParams, a, b, c) -> np.ndarray:
    """Products exact in float64, summed in float64 (BLAS order), plus C, rounded once to the
    output type with round-to-nearest-even."""
    af, bf = values.to_float64(a, p.atype), values.to_float64(b, p.btype)
    with np.errstate(all="ignore"):
        d = af @ bf + values.to_float64(c, p.ctype)
        if p.satfinite:  # legacy FP .satfinite (PTX ≤ 6.4): ±inf → ±largest finite
            big = float(np.finfo(np.float16 if p.dtype == "f16" else np.float32).max)
            d = values.to_float64(values.from_float64(d, p.dtype), p.dtype)
            d = np.where(np.isinf(d), np.copysign(big, d), d)
    return values.from_float64(d, p.dtype)


_S32_MIN, _S32_MAX = -(2 ** 31), 2 ** 31 - 1


def _int_mma(p: WmmaMmaParams, a, b, c) -> np.ndarray:
    ai, bi = values.to_int64(a, p.atype), values.to_int64(b, p.btype)
    if p.op == "xor.popc":  # popc(a XOR b) over k = Σ a + Σ b − 2 Σ a·b  (bits 0/1)
        acc = ai.sum(axis=1)[:, None] + bi.sum(axis=0)[None, :] - 2 * (ai @ bi)
    else:  # integer products, and .and.popc (a AND b = a·b on bits)
        acc = ai @ bi
    d = acc + values.to_int64(c, "s32")
    if p.satfinite:
        d = np.clip(d, _S32_MIN, _S32_MAX)
    else:  # wraps modulo 2^32
        d = (d - _S32_MIN) % (2 ** 32) + _S32_MIN
    return values.from_int64(d)


def _f64_mma(a, b, c, rounding: str) -> np.ndarray:
    """f64 D = A·B + C, each element the exact value rounded once in the given mode
    (.rn/.rz/.rm/.rp). Non-finite inputs follow IEEE float64 arithmetic."""
    af, bf, cf = (values.to_float64(x, "f64") for x in (a, b, c))
    with np.errstate(all="ignore"):
        approx = af @ bf + cf  # also the answer where anything is non-finite
    out = approx.copy()
    for i in range(af.shape[0]):
        for j in range(bf.shape[1]):
            terms = list(zip(af[i], bf[:, j]))
            if not (all(math.isfinite(x) and math.isfinite(y) for x, y in terms)
                    and math.isfinite(cf[i, j])):
                continue
            exact = sum((Fraction(x) * Fraction(y) for x, y in terms), Fraction(cf[i, j]))
            out[i, j] = _round_fraction(exact, rounding, float(approx[i, j]))
    return values.from_float64(out, "f64")


_MAX = float(np.finfo(np.float64).max)


def _round_fraction(x: Fraction, mode: str, approx: float) -> float:
    if x == 0:  # sign of an exact zero sum: what float arithmetic gives, −0 under .rm
        return -0.0 if mode == "rm" else (approx if approx == 0 else 0.0)
    try:
        r = float(x)  # correctly rounded to nearest even
    except OverflowError:
        r = math.copysign(math.inf, x)
    if mode == "rn":
        return r
    if math.isinf(r):
        toward_inf = (mode == "rp" and r > 0) or (mode == "rm" and r < 0)
        return r if toward_inf else math.copysign(_MAX, r)
    fr = Fraction(r)
    if fr == x:
        return r
    if mode == "rz" and abs(fr) > abs(x):
        return math.nextafter(r, 0.0)
    if mode == "rm" and fr > x:
        return math.nextafter(r, -math.inf)
    if mode == "rp" and fr < x:
        return math.nextafter(r, math.inf)
    return r


# --------------------------------------------------------------------------------------------


def check_uniform(base_addrs, strides=None, *, active=None) -> tuple[int, int | None]:
    """Check that all 32 lanes take part and agree on ``p`` (and ``stride``); return them.

    The PTX ISA makes wmma.load/store undefined when lanes use different ``p`` or ``stride`` or
    any lane has exited; ``WmmaError`` names the differing lanes instead."""
    if active is not None:
        active = np.asarray(active, dtype=bool).reshape(-1)
        if active.shape != (32,) or not active.all():
            off = np.flatnonzero(~active) if active.shape == (32,) else []
            raise WmmaError(f"wmma needs all 32 lanes of the warp; lanes {_lanes(off)} are "
                            f"inactive or have exited")
    result = []
    for name, arr in (("p", base_addrs), ("stride", strides)):
        if arr is None:
            result.append(None)
            continue
        arr = np.asarray(arr).reshape(-1)
        if arr.shape != (32,):
            raise WmmaError(f"wmma: expected 32 per-lane values of {name}, got {arr.shape[0]}")
        differ = np.flatnonzero(arr != arr[0])
        if len(differ):
            fmt = (lambda v: f"{int(v):#x}") if name == "p" else (lambda v: str(int(v)))
            raise WmmaError(f"wmma: lanes must use the same {name}; lane 0 has {fmt(arr[0])} "
                            f"but lanes {_lanes(differ)} differ (lane {differ[0]}: "
                            f"{fmt(arr[differ[0]])})")
        result.append(int(arr[0]))
    return result[0], result[1]


def _lanes(lanes) -> str:
    lanes = [int(x) for x in lanes]
    shown = ", ".join(map(str, lanes[:8]))
    return shown + (f", … ({len(lanes)} lanes)" if len(lanes) > 8 else "")
