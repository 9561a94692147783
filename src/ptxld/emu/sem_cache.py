"""Cache management: createpolicy, prefetch, prefetchu, discard, applypriority.

None of them changes a value a kernel can read back (discard's "unstable indeterminate value"
is allowed to be the old one, and is), so without a memory report they only check their operands.
With one they tell the recorder what they do to the caches (`trace.record`).

A cache policy is an opaque 64-bit value (the PTX ISA leaves its encoding open). Here it is
`POLICY_TAG | n`: entry n of the module's policy table (`Program.cache_policies`), which keeps
each distinct policy once, so a policy passed through memory or registers stays meaningful.
"""
from __future__ import annotations

import numpy as np

from ..ptx.nodes import Address, Float, Int
from ..spec.instructions import cache as cache_records
from . import errors
from .handlers import CompileError, handler
from .memory import Fault
from .sem_mem import AddressOperand
from .trace import hints_of

POLICY_TAG = 0xC0DE_0000_0000_0000
POLICY_INDEX = 0xFFFF_FFFF


class CachePolicy:
    """What createpolicy made. `kind` ".fractional" or ".range"; priorities as the ISA spells them
    (".L2::evict_last", ...); a range policy's `base`, `primary_size`, `total_size` in bytes."""
    __slots__ = ("kind", "primary", "secondary", "fraction", "base", "primary_size", "total_size")

    def __init__(self, kind, primary, secondary, fraction=1.0, base=0, primary_size=0, total_size=0):
        self.kind, self.primary, self.secondary, self.fraction = kind, primary, secondary, fraction
        self.base, self.primary_size, self.total_size = base, primary_size, total_size

    def key(self):
        return tuple(getattr(self, k) for k in self.__slots__)

    def __repr__(self) -> str:
        if self.kind == ".fractional":
            return f"CachePolicy(fractional {self.primary} for {self.fraction:g}, else {self.secondary})"
        return (f"CachePolicy(range {self.base:#x}: {self.primary} for {self.primary_size} B, "
                f"{self.secondary} to {self.total_size} B)")


def policy_table(prog) -> list:
    table = getattr(prog, "cache_policies", None)
    if table is None:
        table = prog.cache_policies = []
        prog.cache_policy_index = {}
    return table


def _intern(prog, pol: CachePolicy) -> int:
    table = policy_table(prog)
    k = pol.key()
    n = prog.cache_policy_index.get(k)
    if n is None:
        n = prog.cache_policy_index[k] = len(table)
        table.append(pol)
    return POLICY_TAG | n


def lookup_policy(prog, value: int) -> CachePolicy | None:
    """The policy a 64-bit value names, or None (not made by createpolicy in this module)."""
    table = getattr(prog, "cache_policies", None) or []
    n = value & POLICY_INDEX
    if value & ~POLICY_INDEX != POLICY_TAG or n >= len(table):
        return None
    return table[n]


@handler("createpolicy")
def compile_createpolicy(op, prog):
    ins = op.ins
    d = ins.decoded
    kind = d.get("kind")
    ops = list(ins.operands)
    dest = prog.dest(ops[0], ".b64", ins)
    if kind == ".cvt":
        # an access property made by the CUDA API: its encoding is CUDA's; passed through as is
        src = prog.source(ops[1], ".b64", ins)
        op.run = lambda b, act: dest(b, act, src(b, act).copy())
        return
    primary = d.get("primary")
    secondary = d.get("secondary") or ".L2::evict_unchanged"
    if kind is None or primary is None:
        raise CompileError("createpolicy needs .range or .fractional and a primary priority")
    if kind == ".fractional" and len(ops) > 1 and not isinstance(ops[1], (Float, Int)):
        op.run = _fraction_from_register(prog, ins, dest, prog.source(ops[1], ".b32", ins),
                                         primary, secondary)
        return
    if kind == ".fractional":
        fraction = float(ops[1].value) if len(ops) > 1 else 1.0
        if not 0.0 < fraction <= 1.0:
            raise CompileError(f"fraction {fraction:g} is outside (0.0, 1.0]")
        value = _intern(prog, CachePolicy(kind, primary, secondary, fraction))
        op.run = lambda b, act: dest(b, act, np.full(b.count(act), value, np.uint64))
        return
    if len(ops) != 4 or not isinstance(ops[1], Address):
        raise CompileError("createpolicy.range needs d, [a], primary-size, total-size")
    aop = AddressOperand(prog, ops[1], d.get("space") or "generic", ins)
    psrc = prog.source(ops[2], ".u32", ins)
    tsrc = prog.source(ops[3], ".u32", ins)

    def run(b, act):
        base = aop.values(b, act)
        p = psrc(b, act).astype(np.uint64)
        t = tsrc(b, act).astype(np.uint64)
        bad = p > t
        if bad.any():
            pos = int(np.flatnonzero(bad)[0])
            raise Fault(errors.EmulationError, pos, int(base[pos]), ".global",
                        f"createpolicy.range with primary-size {int(p[pos])} above total-size "
                        f"{int(t[pos])}", "primary-size <= total-size", int(bad.sum()))
        rows, inverse = np.unique(np.stack([base, p, t], axis=1), axis=0, return_inverse=True)
        values = np.array([_intern(prog, CachePolicy(kind, primary, secondary, 1.0, int(r[0]),
                                                     int(r[1]), int(r[2]))) for r in rows], np.uint64)
        dest(b, act, values[inverse.reshape(-1)])
    op.run = run


def _fraction_from_register(prog, ins, dest, src, primary, secondary):
    """createpolicy.fractional with the fraction in a register (an f32 in a 32-bit register)."""
    def run(b, act):
        f = np.ascontiguousarray(src(b, act)).astype(np.uint32).view(np.float32)
        bad = ~((f > 0.0) & (f <= 1.0))
        if bad.any():
            pos = int(np.flatnonzero(bad)[0])
            raise Fault(errors.EmulationError, pos, None, None,
                        f"createpolicy.fractional with fraction {float(f[pos]):g}",
                        "a fraction in (0.0, 1.0]", int(bad.sum()))
        uniq, inverse = np.unique(f, return_inverse=True)
        values = np.array([_intern(prog, CachePolicy(".fractional", primary, secondary, float(x)))
                           for x in uniq], np.uint64)
        dest(b, act, values[inverse.reshape(-1)])
    return run


def _line_operand(prog, ins, name):
    """[a], size of discard/applypriority: size must be the one the ISA allows (128)."""
    ops = ins.operands
    if len(ops) != 2 or not isinstance(ops[0], Address) or not isinstance(ops[1], Int):
        raise CompileError(f"{name} needs [a], {cache_records.LINE_OPERAND_SIZE}")
    if ops[1].value != cache_records.LINE_OPERAND_SIZE:
        raise CompileError(f"{name} takes size {cache_records.LINE_OPERAND_SIZE} only, not {ops[1].value}")
    return ops[0]


@handler("prefetch", "prefetchu", "discard", "applypriority")
def compile_cache_op(op, prog):
    ins = op.ins
    d = ins.decoded
    kind = d.name
    if kind in ("discard", "applypriority"):
        addr = _line_operand(prog, ins, kind)
        align = cache_records.LINE_OPERAND_SIZE
    else:
        if not ins.operands or not isinstance(ins.operands[0], Address):
            raise CompileError(f"{kind} needs an address [a]")
        addr, align = ins.operands[0], 1
    space = d.get("space") or "generic"
    if d.get("tensormap"):
        # a tensor-map prefetch names a descriptor, not data the caches below would hold
        op.run = lambda b, act: None
        return
    aop = AddressOperand(prog, addr, space, ins)
    hints = hints_of(d)
    # discard/applypriority name the 128 bytes at an aligned a; prefetch the line holding a
    size = cache_records.LINE_OPERAND_SIZE if align > 1 else 1

    def run(b, act):
        tr = b.trace
        if align == 1 and tr is None:
            return
        a = aop.values(b, act)
        if align > 1:
            bad = (a & np.uint64(align - 1)) != 0
            if bad.any():
                pos = int(np.flatnonzero(bad)[0])
                raise Fault(errors.MisalignedAddressError, pos, int(a[pos]), space,
                            f"{kind} of an address that is not {align}-byte aligned",
                            f"an address that is a multiple of {align}", int(bad.sum()))
        if tr is not None:
            tr.record(b, op, kind, space, act, a, size, hints, None)
    op.run = run
