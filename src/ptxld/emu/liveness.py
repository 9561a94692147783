"""Which registers a function ever reads: enough to drop a result nobody looks at.

`atom` returns the old value of every thread; computing it in thread order costs a sort of the
addresses, while the new memory contents need only a scatter-add. nvcc keeps a destination
register on `atom` even when the program never uses it (`atomicAdd(&bins[i], 1)`), so the
emulator asks here whether the destination register is named anywhere else in its function.
The answer is conservative: any operand shape this walk does not know counts as naming every
register (nothing is dropped then).
"""
from __future__ import annotations

from collections import Counter

from ..ptx.nodes import Address, Expr, Float, Int, Name, ParenList, PredPair, Sink, Vector

_UNKNOWN = object()          # key counted for an operand this walk cannot see into


def operand_names(node):
    """Every Name inside an operand (registers, variables, labels), in order; `_UNKNOWN` for a
    part this walk cannot see into."""
    if isinstance(node, Name):
        yield node
    elif isinstance(node, (Int, Float, Sink)) or node is None:
        return
    elif isinstance(node, (Vector, ParenList)):
        for x in node.items:
            yield from operand_names(x)
    elif isinstance(node, Address):
        yield from operand_names(node.base)
        for x in node.items or ():
            yield from operand_names(x)
    elif isinstance(node, Expr):
        for x in node.args:
            yield from operand_names(x)
    elif isinstance(node, PredPair):
        yield from operand_names(node.first)
        yield from operand_names(node.second)
    else:
        yield _UNKNOWN


def _names(node, out: Counter) -> None:
    for name in operand_names(node):
        out[name if name is _UNKNOWN else name.name] += 1


def name_counts(prog, fn) -> Counter:
    """How often each name appears in the operands and guards of function `fn`'s instructions
    (cached on the program)."""
    cache = prog.__dict__.setdefault("_name_counts", {})
    counts = cache.get(fn.name)
    if counts is None:
        counts = Counter()
        for op in prog.code[fn.entry_pc:fn.end_pc]:
            ins = op.ins
            if ins is None:
                continue
            if ins.guard is not None:
                _names(ins.guard.name, counts)
            for x in ins.operands:
                _names(x, counts)
        cache[fn.name] = counts
    return counts


def only_written_here(prog, fn, dest) -> bool:
    """True if the register operand `dest` (a Name) appears nowhere in `fn` but this once, so
    its value is never read."""
    counts = name_counts(prog, fn)
    return isinstance(dest, Name) and not counts[_UNKNOWN] and counts[dest.name] == 1
