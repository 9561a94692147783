"""WMMA for ptxld: fragment layouts and warp-level ``wmma.load`` / ``wmma.store`` / ``wmma.mma``.

Tables (which combinations exist, register counts, strides, alignment, version gates) live in
:mod:`ptxld.spec.wmma`; the lane ↔ element maps in :mod:`ptxld.wmma.layouts`.

Emulator contract
-----------------
All functions work on one warp at a time and raise :class:`WmmaError` (a plain ``Exception``)
for anything undefined or illegal; the emulator wraps it with line/thread information.
Instruction parameters may be given as a parsed object (:func:`parse`), the dotted opcode
(``"wmma.load.a.sync.aligned.row.m16n16k16.f16"``) or the modifier list.

``load(params, read, base_addr, stride, target) -> np.ndarray``
    ``read(addrs: int64[n], nbytes: int) -> uint8[n, nbytes]`` reads ``nbytes`` at each address
    (called once, one address per stored row/column; it raises the emulator's own fault on bad
    addresses). ``stride`` is in elements, ``None`` when the instruction has no stride operand
    (the default is used). Returns registers of shape (32, nregs): uint32, or uint64 for f64.
    Checks: stride below the default (UB), ``p`` not aligned to the fragment size, stride not
    keeping rows/columns aligned.
``store(params, write, base_addr, stride, regs, target) -> None``
    ``write(addrs: int64[n], data: uint8[n, nbytes])`` writes each row/column. Same checks.
``mma(params, a_regs, b_regs, c_regs, target="sm_80") -> np.ndarray``
    D registers (32, nregs). Registers may be any (32, nregs) integer array, or float arrays
    reinterpreted bit for bit. Replicated fragment copies must agree, else ``WmmaError``.
``check_uniform(base_addrs, strides=None, *, active=None) -> (p, stride)``
    32 per-lane values each; ``WmmaError`` naming the lanes that differ, or that are inactive.

``target`` is ``"sm_70"``, ``"sm_80"``, ``"sm_90a"``, ... — it picks the layout family (sm_70/72,
sm_75, sm_80+); load, mma and store of one computation must use the same target.

Numerics of ``mma``: f16/bf16/tf32 products are exact in float64, summed in float64, C added,
rounded once (nearest even) to f32/f16; tf32 inputs use only their top 19 bits (the 13 low
mantissa bits are truncated). f64: each element is the exact A·B + C rounded once in the
requested mode (.rn default, .rz, .rm, .rp). Integers: exact, wrapping modulo 2^32 unless
``.satfinite`` (clamp to s32). b1: popc of XOR/AND over the 128-bit row and column, plus C.
"""
from ptxld.wmma.errors import WmmaError
from ptxld.wmma.layouts import FragmentLayout, all_layouts, fragment_layout, target_family
from ptxld.wmma.ops import check_uniform, load, mma, store
from ptxld.wmma.params import WmmaMemParams, WmmaMmaParams, parse

__all__ = [
    "WmmaError", "FragmentLayout", "fragment_layout", "all_layouts", "target_family",
    "load", "store", "mma", "check_uniform", "parse", "WmmaMemParams", "WmmaMmaParams",
]
