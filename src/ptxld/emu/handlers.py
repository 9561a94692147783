"""The registry of instruction semantics, and what every semantics module shares.

Each `sem_*` module registers a compile function per instruction name with `@handler`; the
program compiles each instruction once into a `CompiledOp` by calling it. Nothing here imports the
modules that register: the registry sits below them.
"""
from __future__ import annotations

from ..ptx.nodes import Int

HANDLERS: dict = {}


def handler(*names):
    """Register a compile function for instruction names: a record name of `ptxld.spec`
    (`cp.async.wait_group`) or a mnemonic (`ld`)."""
    def deco(fn):
        for m in names:
            if m in HANDLERS:
                raise RuntimeError(f"two handlers for `{m}`")
            HANDLERS[m] = fn
        return fn
    return deco


def handler_for(decoded):
    """The compile function for a decoded opcode: its record's, else its mnemonic's."""
    return HANDLERS.get(decoded.name) or HANDLERS.get(decoded.mnemonic)


class CompileError(Exception):
    """An instruction the emulator cannot run; becomes UnsupportedInstructionError when reached."""


def immediate_operand(ins, role: str) -> int:
    """The value of the operand `role` of an instruction whose record makes it an immediate
    (`N` of `cp.async.wait_group N`): its position is the record form's, and anything but an
    integer (of the values the record allows) there is a CompileError naming the role."""
    spec = ins.decoded.spec
    name = ins.decoded.name
    n = len(ins.operands)
    for form in spec.forms if spec is not None else ():
        roles = spec.operand_roles(form)
        names = [r for r, _, _ in roles]
        if role not in names or not sum(not opt for _, _, opt in roles) <= n <= len(roles):
            continue
        k = names.index(role)
        allowed = roles[k][1]
        node = ins.operands[k] if k < n else None
        if not isinstance(node, Int):
            raise CompileError(f"`{name}`: operand {role} must be an immediate integer")
        if allowed.values and node.value not in allowed.values:
            raise CompileError(f"`{name}`: operand {role} must be one of {', '.join(map(str, allowed.values))}")
        return int(node.value)
    raise CompileError(f"`{name}` with {n} operand(s): no form of the PTX ISA takes that many")


# CompiledOp kinds: a SIMPLE op runs on the active threads and falls through; a CONTROL op decides where
# each thread goes next.
SIMPLE, CONTROL = 0, 1


class CompiledOp:
    """One compiled instruction."""
    __slots__ = ("pc", "ins", "kind", "run", "guard", "gneg", "fn", "text", "line", "warp_sync",
                 "info")

    def __init__(self, pc, ins, fn):
        self.pc, self.ins, self.fn = pc, ins, fn
        self.kind, self.run = SIMPLE, None
        self.guard, self.gneg = None, False
        self.warp_sync = None            # callable(batch, idx) -> member masks, for *.sync ops
        self.text = " ".join(ins.text.split()) if ins is not None else ""
        self.line = ins.line if ins is not None else 0
        self.info = {}


# Called in `order` when no thread of a batch can run: each may release waiting threads (a
# barrier whose missing threads exited) and return True, or raise the deadlock it sees.
STALL_RESOLVERS: list = []


def stall_resolver(order: int):
    def deco(fn):
        STALL_RESOLVERS.append((order, fn))
        STALL_RESOLVERS.sort(key=lambda r: r[0])
        return fn
    return deco


def resolve_stall(batch) -> bool:
    """Nothing runnable: let the resolvers release threads (True) or report the deadlock."""
    return any(fn(batch) for _, fn in STALL_RESOLVERS)


# Called with (program, function) once every instruction of the function is compiled: a
# semantics module may then wrap the instructions it has to watch (wgmma operand registers).
FUNCTION_HOOKS: list = []


def after_function_compiled(fn):
    FUNCTION_HOOKS.append(fn)
    return fn


# Called with (batch, sorted thread indices) just before threads exit: asynchronous operations
# still in flight are finished or reported.
EXIT_HOOKS: list = []


def on_thread_exit(fn):
    EXIT_HOOKS.append(fn)
    return fn
