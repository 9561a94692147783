"""Stack manipulation (PTX ISA 9.7.17): `alloca`, `stacksave`, `stackrestore`.

A module that uses them gets a per-thread stack of STACK_BYTES in `.local` space, above its
`.local` variables, growing down from its top. Each thread's stack pointer is kept as the number
of bytes in use, in a register of its own that every function call saves and restores, so what
a function allocates is released when it returns (as the ISA says)."""
from __future__ import annotations

import numpy as np

from . import errors
from . import ptxtypes
from .handlers import CompileError, handler
from .memory import Fault

STACK_BYTES = 4096
DEFAULT_ALIGN = 8          # the ISA's minimum guaranteed alignment


def _type(op) -> str:
    t = op.ins.decoded.get("type") or next(iter(op.ins.decoded.types), None)
    if t not in (".u32", ".u64"):
        raise CompileError(f"`{op.ins.opcode}` needs .u32 or .u64")
    return t


@handler("alloca")
def compile_alloca(op, prog):
    ins = op.ins
    t = _type(op)
    ops = ins.operands
    if len(ops) not in (2, 3):
        raise CompileError("alloca takes ptr, size and an optional alignment")
    align = DEFAULT_ALIGN
    if len(ops) == 3:
        value = getattr(ops[2], "value", None)
        if not isinstance(value, int) or value <= 0 or value & (value - 1) or value > 1 << 23:
            raise CompileError("alloca's alignment is a power of 2 constant up to 2^23")
        align = max(value, DEFAULT_ALIGN)
    if align > STACK_BYTES:
        raise CompileError(f"alloca alignment {align} exceeds the emulator's {STACK_BYTES}-byte stack")
    top, slot = prog.stack(STACK_BYTES)
    size = prog.source(ops[1], t, ins)
    dest = prog.dest(ops[0], t, ins)
    w = ptxtypes.WIDTH[t]

    def run(b, act):
        used = b.rd(slot, act).astype(np.int64)
        n = size(b, act).astype(np.int64)
        ptr = (top - used - n) & ~(align - 1)
        over = ptr < top - STACK_BYTES
        if over.any():
            pos = int(np.flatnonzero(over)[0])
            raise Fault(errors.OutOfBoundsError, pos, None, ".local",
                        f"stack overflow: alloca of {int(n[pos])} bytes with {int(used[pos])} of "
                        f"the emulator's {STACK_BYTES}-byte stack in use",
                        "allocations that fit the stack", int(over.sum()))
        b.wr(slot, act, (top - ptr).astype(np.uint64))
        dest(b, act, ptr.astype(ptxtypes.UINT[w]))
    op.run = run


@handler("stacksave")
def compile_stacksave(op, prog):
    t = _type(op)
    top, slot = prog.stack(STACK_BYTES)
    dest = prog.dest(op.ins.operands[0], t, op.ins)
    w = ptxtypes.WIDTH[t]

    def run(b, act):
        dest(b, act, (top - b.rd(slot, act).astype(np.int64)).astype(ptxtypes.UINT[w]))
    op.run = run


@handler("stackrestore")
def compile_stackrestore(op, prog):
    t = _type(op)
    top, slot = prog.stack(STACK_BYTES)
    src = prog.source(op.ins.operands[0], t, op.ins)

    def run(b, act):
        ptr = src(b, act).astype(np.int64)
        bad = (ptr > top) | (ptr < top - STACK_BYTES)
        if bad.any():
            pos = int(np.flatnonzero(bad)[0])
            raise Fault(errors.EmulationError, pos, int(ptr[pos]), ".local",
                        "stackrestore to a value stacksave did not give",
                        "a stack pointer saved by stacksave", int(bad.sum()))
        b.wr(slot, act, (top - ptr).astype(np.uint64))
    op.run = run
