"""Run one LDG / sparse LDG / LD on a register file, vectorised over lanes (NumPy).

Semantics (NVIDIA's LDG description):
* effective address = ``Ra`` (32-bit) or ``{Ra+1, Ra}`` (with ``.E``, 64-bit) plus the
  sign-extended offset; if ``Ra`` is RZ or beyond the register file the address is the
  zero-extended unsigned immediate;
* the address is forced to natural alignment (rounded down to the access size), silently;
* ``.U8/.U16`` zero-extend and ``.S8/.S16`` sign-extend into 32 bits; ``.64``, ``.128`` and
  ``.U.128`` fill 2 or 4 consecutive registers from Rd (low word first); writes to RZ vanish;
* lanes whose guard predicate is false (or that are inactive) are untouched;
* sparse form: a lane whose address falls in a page marked sparse reads zeros and sets ``Ps``
  ("the access is happening to a page marked as sparse"); other lanes clear ``Ps``.
Registers are ``uint32[nregs, lanes]``; predicates ``bool[7, lanes]`` (P0..P6; PT is constant).
"""
from __future__ import annotations

from typing import Iterable

import numpy as np

from ptxld.spec import ldg as spec
from ptxld.sass.encoding import LdgInstruction, decode
from ptxld.sass.errors import SassError
from ptxld.sass.syntax import format_instruction, parse_instruction


class SassExecutionError(SassError):
    """A load that cannot be carried out (address outside memory, register out of range)."""


def _as_instruction(insn, arch: str) -> LdgInstruction:
    if isinstance(insn, LdgInstruction):
        return insn
    if isinstance(insn, (int, np.integer)):
        return decode(int(insn), arch=arch)
    return parse_instruction(str(insn))[0]


def execute(insn, regs: np.ndarray, preds: np.ndarray, memory: np.ndarray, *,
            arch: str = "sm_50", base_address: int = 0, active: np.ndarray | None = None,
            sparse_pages: Iterable[int] = (), page_size: int = 65536) -> None:
    """Execute ``insn`` (an LdgInstruction, its text or its 64-bit word) in place.

    ``memory`` is a ``uint8`` array holding addresses ``base_address ...``."""
    insn = _as_instruction(insn, arch)
    if regs.ndim != 2 or regs.dtype != np.uint32:
        raise SassExecutionError("registers must be a uint32 array [nregs, lanes]")
    nregs, lanes = regs.shape
    if preds.shape != (7, lanes) or preds.dtype != np.bool_:
        raise SassExecutionError(f"predicates must be a bool array [7, {lanes}]")
    where = format_instruction(insn)

    run = np.ones(lanes, bool) if active is None else np.asarray(active, bool).copy()
    guard = np.ones(lanes, bool) if insn.pred == spec.PT else preds[insn.pred]
    run &= ~guard if insn.pred_neg else guard
    if not run.any():
        return

    nbytes = spec.SIZE_BYTES[insn.size]
    imm_mask = (1 << insn.spec_form.imm_bits) - 1
    if insn.ra == spec.RZ or insn.ra >= nregs:
        addr = np.full(lanes, insn.imm & imm_mask, dtype=np.uint64)
    else:
        addr = regs[insn.ra].astype(np.uint64)
        if insn.e:
            if insn.ra + 1 >= nregs:
                raise SassExecutionError(f"{where}: .E needs the pair {{R{insn.ra + 1}, "
                                         f"R{insn.ra}}} but the register file has {nregs}")
            addr |= regs[insn.ra + 1].astype(np.uint64) << np.uint64(32)
        addr = addr + np.uint64(insn.imm & (2**64 - 1))  # wraps modulo 2**64
        if not insn.e:
            addr &= np.uint64(0xFFFFFFFF)
    addr &= ~np.uint64(nbytes - 1)  # natural alignment, no notification

    sparse = np.zeros(lanes, bool)
    pages = np.fromiter(sparse_pages, dtype=np.uint64)
    if insn.form == "ldg_sparse" and pages.size:
        sparse = np.isin(addr // np.uint64(page_size), pages) & run
    reading = run & ~sparse

    rel = addr - np.uint64(base_address) if base_address else addr.copy()
    too_low = addr < np.uint64(base_address)
    bad = reading & (too_low | (rel + np.uint64(nbytes) > np.uint64(memory.size)))
    if bad.any():
        lane = int(np.flatnonzero(bad)[0])
        raise SassExecutionError(
            f"{where}: lane {lane} reads {nbytes} bytes at address {int(addr[lane]):#x}, "
            f"outside memory [{base_address:#x}, {base_address + memory.size:#x})")

    data = np.zeros((lanes, nbytes), np.uint8)
    idx = np.flatnonzero(reading)
    if idx.size:
        start = rel[idx].astype(np.int64)
        data[idx] = memory[start[:, None] + np.arange(nbytes)]
    words = _to_words(data, insn.size)

    if insn.rd != spec.RZ:
        last = insn.rd + words.shape[0] - 1
        if last >= nregs:
            raise SassExecutionError(f"{where}: writes R{insn.rd}..R{last} but the register "
                                     f"file has {nregs}")
        for k in range(words.shape[0]):
            regs[insn.rd + k, run] = words[k, run]
    if insn.form == "ldg_sparse" and insn.ps is not None and insn.ps != spec.PT:
        preds[insn.ps, run] = sparse[run]


def _to_words(data: np.ndarray, size: str) -> np.ndarray:
    """Little-endian bytes per lane -> 32-bit register values [nwords, lanes]."""
    if size in ("U8", "S8", "U16", "S16"):
        dtype = {"U8": "<u1", "S8": "<i1", "U16": "<u2", "S16": "<i2"}[size]
        v = data.copy().view(dtype)[:, 0].astype(np.int64)
        return (v & 0xFFFFFFFF).astype(np.uint32)[None, :]
    return np.ascontiguousarray(data).view("<u4").T.astype(np.uint32)
