"""Register bits ⇄ fragment element bits ⇄ numbers.

Registers are raw bit patterns: uint32, or uint64 for f64 fragments. Element slot s of a
register occupies bits [s·w, (s+1)·w) for element width w (slot 0 lowest, PTX's packing order).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ptxld.spec.wmma import FragmentSpec
from ptxld.wmma.errors import WmmaError


def register_dtype(fs: FragmentSpec) -> np.dtype:
    return np.dtype(np.uint64 if fs.register_bits == 64 else np.uint32)


def as_register_bits(regs, fs: FragmentSpec, what: str) -> np.ndarray:
    """Registers given as any integer or float array of shape (32, nregs) → raw uint64 bits.
    Float arrays are reinterpreted bit for bit (an emulator may keep f32 registers as float32)."""
    a = np.asarray(regs)
    if a.shape != (32, fs.nregs):
        raise WmmaError(f"{what}: expected fragment registers of shape (32, {fs.nregs}) for "
                        f".{fs.matrix} .{fs.shape} .{fs.type}, got {a.shape}")
    if a.dtype.kind in "fi":
        a = a.view(np.dtype(f"u{a.dtype.itemsize}"))
    elif a.dtype.kind not in "ub":
        raise WmmaError(f"{what}: registers must be an integer or float array, not {a.dtype}")
    mask = np.uint64((1 << fs.register_bits) - 1)
    return a.astype(np.uint64) & mask


def unpack(regs: np.ndarray, fs: FragmentSpec) -> np.ndarray:
    """(32, nregs) register bits → (32, nregs, slots) element bits (uint64)."""
    w = fs.element_bits
    shifts = (np.arange(fs.elements_per_register, dtype=np.uint64) * np.uint64(w))
    mask = np.uint64((1 << w) - 1)
    return (regs.astype(np.uint64)[..., None] >> shifts) & mask


def pack(values: np.ndarray, fs: FragmentSpec) -> np.ndarray:
    """(32, nregs, slots) element bits → (32, nregs) registers of ``register_dtype``."""
    w = fs.element_bits
    shifts = (np.arange(fs.elements_per_register, dtype=np.uint64) * np.uint64(w))
    regs = np.bitwise_or.reduce(values.astype(np.uint64) << shifts, axis=-1)
    return regs.astype(register_dtype(fs))


# -- element bits ⇄ numbers ----------------------------------------------------------------

_TF32_MASK = np.uint64(0xFFFF_E000)  # sign, 8 exponent bits, 10 mantissa bits


def to_float64(bits: np.ndarray, type_: str) -> np.ndarray:
    """Floating-point element bits → float64 (exact for every input type)."""
    if type_ == "f16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    if type_ == "bf16":
        return bits.astype(np.uint16).view(ml_dtypes.bfloat16).astype(np.float64)
    if type_ == "tf32":
        # Only the tf32 bits of the 32-bit container take part: the 13 low mantissa bits are
        # dropped (truncation). This is ptxld's choice; the PTX ISA leaves the container's
        # unused bits implementation-defined and expects cvt.rna.tf32.f32 to have rounded.
        return (bits & _TF32_MASK).astype(np.uint32).view(np.float32).astype(np.float64)
    if type_ == "f32":
        return bits.astype(np.uint32).view(np.float32).astype(np.float64)
    if type_ == "f64":
        return bits.astype(np.uint64).view(np.float64)
    raise ValueError(type_)


def from_float64(values: np.ndarray, type_: str) -> np.ndarray:
    """float64 → element bits of ``type_`` (f16/f32/f64), rounding to nearest even."""
    values = np.asarray(values, dtype=np.float64)
    if type_ == "f16":
        with np.errstate(over="ignore"):  # overflow to ±inf is the IEEE result
            return values.astype(np.float16).view(np.uint16).astype(np.uint64)
    if type_ == "f32":
        return values.astype(np.float32).view(np.uint32).astype(np.uint64)
    if type_ == "f64":
        return values.view(np.uint64).copy()
    raise ValueError(type_)


def to_int64(bits: np.ndarray, type_: str) -> np.ndarray:
    """Integer element bits → int64 (sign-extending signed types; b1 → 0/1)."""
    width = {"s8": 8, "u8": 8, "s4": 4, "u4": 4, "s32": 32, "b1": 1}[type_]
    v = bits.astype(np.int64)
    if type_.startswith("s"):
        sign = 1 << (width - 1)
        v = (v ^ sign) - sign
    return v


def from_int64(values: np.ndarray) -> np.ndarray:
    """int64 already in s32 range → s32 element bits."""
    return np.asarray(values, dtype=np.int64).astype(np.int32).view(np.uint32).astype(np.uint64)
