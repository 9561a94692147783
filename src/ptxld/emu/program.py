"""A PTX module made executable: code laid out by program counter, registers as slots, variables
placed in their state spaces, and every instruction compiled once into a small closure.

Instruction semantics live in the `sem_*` modules; each registers a compile function per
mnemonic in `HANDLERS`. A `CompiledOp` runs on a set of threads (`idx`: sorted thread indices,
or None for every thread of the batch)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..ptx.nodes import (ELEMENT, Block, Directive, Expr, Float, Instruction, Int, LabelDef, Name, Sink,
                        Variable, Vector)
from ..spec.opcodes import special_register
from . import errors
from . import ptxtypes
# the semantics modules register their handlers on import
from . import (sem_async, sem_cache, sem_cluster, sem_matrix, sem_mbarrier, sem_mem,  # noqa: F401
               sem_stack, sem_tensor, sem_video, sem_warp, sem_wgmma)
from .handlers import FUNCTION_HOOKS, SIMPLE, CompileError, CompiledOp, handler_for
from .memory import LAYOUT32, LAYOUT64, Fault, Segment
from .sem_alu import compile_alu
from .sem_control import compile_fallthrough_end
from .sem_special import special_reader

@dataclass(eq=False)
class Func:
    name: str
    node: object
    entry_pc: int = 0
    end_pc: int = 0
    slots: list = field(default_factory=list)
    pvars: list = field(default_factory=list)      # per-thread .param variables owned
    formals: list = field(default_factory=list)    # pvar ids of parameters
    returns: list = field(default_factory=list)    # pvar ids of return parameters
    formal_regs: list = field(default_factory=list)  # per parameter: [(slot, type)] or None
    return_regs: list = field(default_factory=list)
    local_lo: int = 0
    local_hi: int = 0
    address: int = 0


def special_type(name: str) -> str | None:
    sr = special_register(name)
    return sr.type if sr is not None else None


def _align_up(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def var_size(v: Variable) -> int:
    n = ptxtypes.WIDTH.get(v.type, 8) // 8 if v.type != ".pred" else 1
    if v.vector:
        n *= int(v.vector[2:])
    for d in v.dims:
        n *= d if d else 0
    return n


def var_align(v: Variable) -> int:
    if v.align:
        return v.align
    n = max(1, ptxtypes.WIDTH.get(v.type, 8) // 8)
    if v.vector:
        n *= int(v.vector[2:])
    return n


def _immediate_source(bits, w: int):
    """An immediate operand: the same value in every active thread, as an array shaped like a
    register read (PTX ISA: an immediate is broadcast to every thread). The array for each
    thread count is made once and kept read-only; `Batch.wr` copies it before storing it."""
    made: dict[int, np.ndarray] = {}

    def read(b, idx):
        n = b.count(idx)
        arr = made.get(n)
        if arr is None:
            if len(made) >= 8:            # divergent code reads it with many thread counts
                made.clear()
            arr = made[n] = ptxtypes.full(bits, w, n)
            arr.flags.writeable = False
        return arr
    return read


class Program:
    def __init__(self, module, gmem):
        self.module = module
        self.filename = module.filename
        self.layout = LAYOUT32 if module.address_size == 32 else LAYOUT64
        self.addr_type = ".u32" if self.layout.bits == 32 else ".u64"
        self.target = module.target or "sm_80"
        self.gmem = gmem
        self.code: list[CompiledOp] = []
        self.funcs: dict[str, Func] = {}
        self.slot_of: dict = {}
        self.slot_width: list[int] = []
        self.slot_type: list[str] = []
        self.pvar_of: dict = {}
        self.pvar_size: list[int] = []
        self.shared_off: dict = {}
        self.static_shared = 0
        self.extern_shared: list = []
        self.local_off: dict = {}
        self.local_size = 0
        self.const_off: dict = {}
        self.const_image = bytearray()
        self.global_seg: dict = {}
        self.func_by_addr: dict[int, str] = {}
        self.local_range: dict[str, tuple[int, int]] = {}
        self.param_offsets: dict[int, int] = {}   # id(kernel parameter) -> its byte offset
        self._place_module_variables()
        self._layout_functions()

    # ------------------------------------------------------------------ variables
    def _place_module_variables(self):
        pending = []
        for item in self.module.items:
            if isinstance(item, Variable):
                self._place(item, None, pending)
        self._entry_shared: dict = {}
        for item in self.module.items:
            if getattr(item, "kind", "") == "function":
                self._walk_vars(item.body, item, pending)
        self._place_entry_shared()
        size = max(len(self.const_image), 1)
        self.const = Segment(self.layout.const, size, np.zeros(_align_up(size, 32), np.uint8), ".const bank", True)
        self._pending_inits = pending

    def _walk_vars(self, block, fn, pending):
        if block is None:
            return
        for it in block.items:
            if isinstance(it, Variable):
                self._place(it, fn, pending)
            elif isinstance(it, Block):
                self._walk_vars(it, fn, pending)

    def _place(self, v: Variable, fn, pending):
        sp = v.space
        if sp == ".global":
            size = var_size(v)
            seg = self.gmem.alloc(size, f".global {v.name}", align=max(var_align(v), 16))
            self.global_seg[v] = seg
            if v.init is not None:
                pending.append((v, seg.data, 0))
        elif sp == ".const":
            off = _align_up(len(self.const_image), var_align(v))
            self.const_image.extend(b"\0" * (off + var_size(v) - len(self.const_image)))
            self.const_off[v] = off
            if v.init is not None:
                pending.append((v, None, off))
        elif sp == ".shared":
            if v.linkage == ".extern" or (v.dims and v.dims[-1] is None):
                self.extern_shared.append(v)
            elif fn is not None and fn.is_entry:
                self._entry_shared.setdefault(id(fn), []).append(v)
            else:
                off = _align_up(self.static_shared, var_align(v))
                self.shared_off[v] = off
                self.static_shared = off + var_size(v)
        elif sp == ".local":
            off = _align_up(self.local_size, var_align(v))
            self.local_off[v] = off
            self.local_size = off + var_size(v)
            if fn is not None:
                lo, hi = self.local_range.get(fn.name, (off, off))
                self.local_range[fn.name] = (min(lo, off), max(hi, self.local_size))
        elif sp == ".param" and fn is not None and not fn.is_entry:
            pass  # formal parameters are placed with the function
        elif sp == ".param" and fn is not None and v.function is None:
            pass

    def _place_entry_shared(self):
        """Shared variables declared inside a kernel (nvcc's "demoted" __shared__ variables)
        exist only while that kernel runs: each kernel's start after the module's own (and device
        functions') shared variables, and different kernels' overlap, as on the GPU, where a
        kernel's shared window holds its own variables only. Offsets stay those of the hardware's
        range (a wgmma descriptor keeps only 18 address bits)."""
        base = top = self.static_shared
        for variables in self._entry_shared.values():
            off = base
            for v in variables:
                off = _align_up(off, var_align(v))
                self.shared_off[v] = off
                off += var_size(v)
            top = max(top, off)
        self.static_shared = top

    def extern_shared_offset(self) -> int:
        a = max([var_align(v) for v in self.extern_shared] + [16])
        return _align_up(self.static_shared, a)

    def init_variables(self):
        """Write initializers (after every variable has an address, for address-of items)."""
        for v, data, off in self._pending_inits:
            blob = self._init_bytes(v)
            if data is None:
                self.const_image[off:off + len(blob)] = blob
            else:
                data[:len(blob)] = np.frombuffer(bytes(blob), np.uint8)
        self.const.data[:len(self.const_image)] = np.frombuffer(bytes(self.const_image), np.uint8)

    def _init_bytes(self, v: Variable) -> bytearray:
        items = []

        def flat(x):
            if isinstance(x, (list, tuple)):
                for y in x:
                    flat(y)
            elif isinstance(x, Vector):
                for y in x.items:
                    flat(y)
            else:
                items.append(x)
        flat(v.init)
        w = ptxtypes.WIDTH.get(v.type, 8)
        out = bytearray()
        for it in items:
            if isinstance(it, (Int, Float)):
                val = ptxtypes.immediate_bits(it, v.type)
            else:
                # PTX ISA 5.4.4: a variable name initializes with its address in its own state
                # space; `generic(x)` asks for the generic address
                val = self.address_constant(it, generic=False)
            out += int(val).to_bytes(w // 8, "little")
        return out

    def address_constant(self, node, generic: bool = False) -> int:
        """The address of `var`, `var+imm`, `generic(var)` as an initializer or operand."""
        if isinstance(node, Name):
            v = self.module.scope.lookup(node.name)
            if v is None or not isinstance(v, Variable):
                if node.name in self.funcs:
                    return self.funcs[node.name].address
                raise CompileError(f"`{node.name}` is not a variable")
            return self.var_address(v, generic)
        if isinstance(node, Expr) and node.op in ("+", "-") and len(node.args) == 2:
            base = self.address_constant(node.args[0], generic)
            off = node.args[1]
            if isinstance(off, Int):
                return base + (off.value if node.op == "+" else -off.value)
        if isinstance(node, Expr) and node.op == "generic":
            return self.address_constant(node.args[0], True)
        raise CompileError("unsupported address expression in initializer")

    def var_address(self, v: Variable, generic: bool) -> int:
        L = self.layout
        if v in self.global_seg:
            return self.global_seg[v].base
        if v in self.const_off:
            return self.const_off[v] + (L.const if generic else 0)
        if v in self.shared_off:
            return self.shared_off[v] + (L.shared if generic else 0)
        if v in self.extern_shared:
            return self.extern_shared_offset() + (L.shared if generic else 0)
        if v in self.local_off:
            return self.local_off[v] + (L.local if generic else 0)
        raise CompileError(f"`{v.name}` ({v.space}) has no address in this emulator")

    # ------------------------------------------------------------------ registers / params
    def slot(self, v: Variable, name: str, comp: str | None = None) -> int:
        key = (id(v), name, comp)
        s = self.slot_of.get(key)
        if s is None:
            if v.type not in ptxtypes.WIDTH:  # a declaration the checker reports (PTX ISA types only)
                raise CompileError(f"register `{name}` has no PTX type (`{v.type}`)")
            s = len(self.slot_width)
            self.slot_of[key] = s
            self.slot_width.append(ptxtypes.WIDTH[v.type])
            self.slot_type.append(v.type)
            fn = self._current_func
            if fn is not None:
                fn.slots.append(s)
        return s

    def carry_slot(self) -> int:
        """The register holding each thread's carry flag CC.CF (PTX ISA 9.7.2): one for the whole
        program (the ISA does not preserve it across calls)."""
        s = getattr(self, "_carry_slot", None)
        if s is None:
            s = self._carry_slot = len(self.slot_width)
            self.slot_width.append(1)
            self.slot_type.append(".pred")
        return s

    def stack(self, size: int) -> tuple[int, int]:
        """(top, slot) of the per-thread stack for alloca/stacksave/stackrestore: `size` bytes of
        .local space above the .local variables, and the register holding each thread's bytes
        in use. Every function saves and restores it across calls (alloca memory is released
        when the function that made it returns)."""
        got = getattr(self, "_stack", None)
        if got is None:
            top = _align_up(self.local_size, 16) + size
            self.local_size = top
            s = len(self.slot_width)
            self.slot_width.append(64)
            self.slot_type.append(".u64")
            for fn in self.funcs.values():
                if not fn.node.is_entry:
                    fn.slots.append(s)
            got = self._stack = (top, s)
        return got

    def carry_source(self):
        s = self.carry_slot()
        return lambda b, idx: b.rd(s, idx)

    def carry_dest(self):
        s = self.carry_slot()
        return lambda b, idx, val: b.wr(s, idx, val)

    def pvar(self, v: Variable) -> int:
        p = self.pvar_of.get(id(v))
        if p is None:
            p = len(self.pvar_size)
            self.pvar_of[id(v)] = p
            self.pvar_size.append(max(var_size(v), 1))
            if self._current_func is not None:
                self._current_func.pvars.append(p)
        return p

    # ------------------------------------------------------------------ code
    def _layout_functions(self):
        self._current_func = None
        fnodes = [it for it in self.module.items if getattr(it, "kind", "") == "function" and it.body is not None]
        for i, f in enumerate(fnodes):
            fn = Func(f.name, f, address=self.layout.code + 16 * (i + 1))
            fn.local_lo, fn.local_hi = self.local_range.get(f.name, (0, 0))
            self.funcs[f.name] = fn
            self.func_by_addr[fn.address] = f.name
        self.kernel_params: dict[str, list] = {}
        for f in fnodes:
            fn = self.funcs[f.name]
            self._current_func = fn
            if f.is_entry:
                off, plist = 0, []
                for p in f.params:
                    off = _align_up(off, var_align(p))
                    plist.append((p, off, var_size(p)))
                    off += var_size(p)
                self.kernel_params[f.name] = plist
                for p, o, _ in plist:
                    self.param_offsets[id(p)] = o
            else:
                fn.formals = [self.pvar(p) for p in f.params]
                fn.returns = [self.pvar(p) for p in f.returns]
                # `.reg` parameters live in the callee's registers (PTX ISA 5.1.6.1)
                fn.formal_regs = [self.param_regs(p) for p in f.params]
                fn.return_regs = [self.param_regs(p) for p in f.returns]
            fn.entry_pc = len(self.code)
            labels: dict[str, int] = {}
            body: list[Instruction] = []
            fn.branch_tables = {}
            self._collect(f.body, body, labels, fn.branch_tables)
            fn.labels = labels
            for ins in body:
                self.code.append(CompiledOp(len(self.code), ins, fn))
            # falling off the end of a function returns
            self.code.append(CompiledOp(len(self.code), None, fn))
            fn.end_pc = len(self.code)
        for fn in self.funcs.values():
            self._current_func = fn
            for pc in range(fn.entry_pc, fn.end_pc):
                self._compile(self.code[pc])
            for hook in FUNCTION_HOOKS:
                hook(self, fn)
        self._current_func = None

    def _collect(self, block, out, labels, tables=None):
        """Lay out a function body: instructions in order, label -> pc, and the `.branchtargets`
        lists (label -> target names) that `brx.idx` indexes."""
        last_label = None
        for it in block.items:
            if isinstance(it, Directive) and it.name == ".branchtargets" and tables is not None:
                if last_label is not None:
                    tables[last_label] = [a for a in it.args if a != ","]
            last_label = it.name if isinstance(it, LabelDef) else None
            if isinstance(it, Instruction):
                for lab in it.labels:
                    labels[lab.name] = len(self.code) + len(out)
                out.append(it)
            elif isinstance(it, LabelDef):
                labels[it.name] = len(self.code) + len(out)
            elif isinstance(it, Block):
                self._collect(it, out, labels, tables)
            elif isinstance(it, Variable) and it.space == ".param":
                self.pvar(it)

    def _compile(self, op: CompiledOp):
        if op.ins is None:
            compile_fallthrough_end(op, self)
            return
        ins = op.ins
        try:
            if ins.guard is not None:
                op.guard = self.pred_slot(ins.guard.name, ins)
                op.gneg = ins.guard.negated
            h = handler_for(ins.decoded) or compile_alu
            h(op, self)
        except CompileError as e:
            msg = str(e)
        except (KeyError, ValueError, TypeError, IndexError, AttributeError) as e:
            # a defect of the emulator, not of the PTX: reported where it is reached, as an
            # EmulationError naming the instruction, never as a Python exception at load time
            msg = f"the emulator failed to compile it (internal {type(e).__name__}: {e}); please report this"
        else:
            return

        def unsupported(b, idx, _msg=msg):
            raise Fault(errors.UnsupportedInstructionError, 0, None, None,
                        f"cannot execute `{ins.opcode}`: {_msg}",
                        "an instruction the emulator implements", b.count(idx))
        op.kind, op.run = SIMPLE, unsupported

    # ------------------------------------------------------------------ operand helpers
    def lookup(self, name: str, ins):
        scope = ins.scope if ins is not None else self.module.scope
        v = scope.lookup(name) if scope is not None else None
        return v

    def reg(self, node, ins) -> tuple[int, str]:
        """(slot, register type) of a register operand."""
        if not isinstance(node, Name):
            raise CompileError(f"expected a register, found {type(node).__name__}")
        v = self.lookup(node.name, ins)
        if v is None or not isinstance(v, Variable) or v.space != ".reg":
            raise CompileError(f"`{node.text}` is not a declared register")
        if v.vector and node.component is None:
            raise CompileError(f"vector register `{node.name}` used as a scalar")
        comp = {"r": "x", "g": "y", "b": "z", "a": "w"}.get(node.component, node.component)
        return self.slot(v, node.name, comp), v.type

    def pred_slot(self, node, ins) -> int:
        s, t = self.reg(node, ins)
        if t != ".pred":
            raise CompileError(f"guard `{node.text}` is not a predicate")
        return s

    def whole_vector(self, node, ins):
        """A vector register named whole (`v` of `.reg .v2 .u32 v`) as the brace list of its
        elements `{v.x, v.y}`; any other operand unchanged."""
        if isinstance(node, Name) and node.component is None:
            v = self.lookup(node.name, ins)
            if isinstance(v, Variable) and v.space == ".reg" and v.vector:
                n = int(v.vector[2:])
                return Vector([Name(node.name, node.start, node.end, c) for c in "xyzw"[:n]],
                              node.start, node.end)
        return node

    def param_regs(self, p: Variable):
        """The registers of a `.reg` function parameter (one per vector element), else None."""
        if p.space != ".reg":
            return None
        comps = [None] if not p.vector else list("xyzw"[:int(p.vector[2:])])
        return [(self.slot(p, p.name, c), p.type) for c in comps]

    def vector_regs(self, node, ins) -> list:
        """A vector operand's elements: (slot, type) or None for the sink `_`."""
        if isinstance(node, Vector):
            return [None if isinstance(x, Sink) else self.reg(x, ins) for x in node.items]
        if isinstance(node, Name):
            v = self.lookup(node.name, ins)
            if isinstance(v, Variable) and v.vector and node.component is None:
                n = int(v.vector[2:])
                return [(self.slot(v, node.name, c), v.type) for c in "xyzw"[:n]]
            return [self.reg(node, ins)]
        raise CompileError("expected a register or a vector of registers")

    def source(self, node, t: str, ins):
        """Compile a source operand read as type `t` -> fn(batch, idx) -> raw bits array."""
        w = ptxtypes.WIDTH[t]
        if isinstance(node, (Int, Float)):
            return _immediate_source(ptxtypes.immediate_bits(node, t), w)
        if isinstance(node, Name):
            v = self.lookup(node.name, ins)
            if isinstance(v, Variable) and v.space == ".reg":
                s, rt = self.reg(node, ins)
                rw = ptxtypes.WIDTH[rt]
                if rw == w:
                    return lambda b, idx: b.rd(s, idx)
                if w == 1:
                    return lambda b, idx: b.rd(s, idx) != 0
                return lambda b, idx: ptxtypes.convert_width(b.rd(s, idx), rt, w)
            if node.name == "WARP_SZ" and v is None:               # the warp size, a constant
                return lambda b, idx: ptxtypes.full(32, w, b.count(idx))
            st = special_type(node.name)
            if st is not None and v is None:
                rd = special_reader(node.name, node.component)
                sw = ptxtypes.WIDTH[st]
                if sw == w:
                    return rd
                return lambda b, idx: ptxtypes.convert_width(rd(b, idx), st, w)
            if isinstance(v, Variable) or node.name in self.funcs:
                addr = self.operand_address_constant(node, ins)
                return lambda b, idx: ptxtypes.full(addr & ((1 << w) - 1), w, b.count(idx))
            raise CompileError(f"unknown operand `{node.text}`")
        if isinstance(node, Expr) and node.op == ELEMENT and not isinstance(node.args[1], Int):
            # `buf[%r1]`: the array's address plus the index register times the element size
            addr = self.operand_address_constant(node.args[0], ins)
            scale = self.element_size(node.args[0], ins)
            index = self.source(node.args[1], ".s64", ins)
            if w not in ptxtypes.UINT:
                raise CompileError(f"an array element's address cannot be read as {t}")
            dtype = ptxtypes.UINT[w]
            return lambda b, idx: (index(b, idx).view(np.int64) * scale + addr).astype(dtype)
        if isinstance(node, Expr) and node.op == "u!" and w == 1:      # a negated predicate `!p`
            inner = self.source(node.args[0], t, ins)
            return lambda b, idx: ~inner(b, idx)
        if isinstance(node, Expr) and self._register_plus_immediate(node, ins):
            return self._register_offset_source(node, t, ins)
        if isinstance(node, Expr):
            addr = self.operand_address_constant(node, ins)
            return lambda b, idx: ptxtypes.full(addr & ((1 << w) - 1), w, b.count(idx))
        raise CompileError(f"unsupported operand {type(node).__name__}")

    def element_size(self, array: Name, ins) -> int:
        """The bytes one index step of `array[i]` moves: its scalar type's size (ptxas scales by
        the element type alone: a `.v4 .u32` or two-dimensional array steps by 4 too)."""
        v = self.lookup(array.name, ins)
        if not isinstance(v, Variable) or not v.dims:
            raise CompileError(f"`{array.name}` is not an array: it cannot be indexed")
        return max(1, ptxtypes.WIDTH[v.type] // 8)

    def _register_plus_immediate(self, node, ins) -> bool:
        """`%r + imm` / `%r - imm` (a register, not a variable, on the left)."""
        if node.op not in ("+", "-") or len(node.args) != 2 or not isinstance(node.args[1], Int):
            return False
        base = node.args[0]
        if not isinstance(base, Name):
            return False
        v = self.lookup(base.name, ins)
        return isinstance(v, Variable) and v.space == ".reg"

    def _register_offset_source(self, node, t: str, ins):
        """`%r + imm` as a source operand (ptxas folds it): the register plus the immediate,
        wrapping at the operand's width."""
        w = ptxtypes.WIDTH[t]
        if w not in ptxtypes.UINT:
            raise CompileError(f"`{node.args[0].text} + imm` cannot be a {t} operand")
        reg = self.source(node.args[0], t, ins)
        k = node.args[1].value if node.op == "+" else -node.args[1].value
        imm = ptxtypes.UINT[w](k & ((1 << w) - 1))
        return lambda b, idx: reg(b, idx) + imm

    def operand_address_constant(self, node, ins) -> int:
        """`var` / `var+imm` used as a value: its address in its own state space."""
        if isinstance(node, Name):
            v = self.lookup(node.name, ins)
            if isinstance(v, Variable):
                if v.space == ".param" and id(v) in self.param_offsets:
                    return self.param_offsets[id(v)]
                return self.var_address(v, generic=False)
            if node.name in self.funcs:
                return self.funcs[node.name].address
            raise CompileError(f"`{node.text}` is not a variable or function")
        if isinstance(node, Expr) and node.op == ELEMENT and isinstance(node.args[1], Int):
            base = self.operand_address_constant(node.args[0], ins)
            return base + node.args[1].value * self.element_size(node.args[0], ins)
        if isinstance(node, Expr) and node.op in ("+", "-") and isinstance(node.args[1], Int):
            base = self.operand_address_constant(node.args[0], ins)
            return base + (node.args[1].value if node.op == "+" else -node.args[1].value)
        raise CompileError("unsupported address expression")

    def dest(self, node, t: str, ins):
        """Compile a destination: fn(batch, idx, bits) writing raw bits of type `t` (Table 28
        extension into a wider register)."""
        if isinstance(node, Sink):
            return lambda b, idx, val: None
        s, rt = self.reg(node, ins)
        rw = ptxtypes.WIDTH[rt]
        w = ptxtypes.WIDTH[t]
        if rw == w:
            return lambda b, idx, val: b.wr(s, idx, val)
        if rw < w and w != 1:
            return lambda b, idx, val: b.wr(s, idx, ptxtypes.convert_width(val, ".b%d" % w, rw))
        return lambda b, idx, val: b.wr(s, idx, ptxtypes.convert_width(val, t, rw))
