"""The baseline the emulator is measured against: a plain per-thread Python interpreter.

One thread at a time over ptxld's parsed program, registers in a dict (Python ints for integer
registers, Python floats rounded to float32 for .f32 registers), memory in bytearrays. Each
thread is a generator that runs until it reaches `bar.sync` or `shfl.sync`; the CTA loop runs
every thread up to that point, completes the barrier or the shuffle, and resumes them. Operands
are decoded once per instruction before running (what any sensible interpreter does); it knows
exactly the instructions of benchmarks' kernel shapes (tests/kernels/cuda/bench_shapes.cu).
fma.rn.f32 is computed in double and rounded to float32 (double rounding: not always correctly
rounded; the baseline is for speed, and its outputs are checked only where that cannot matter).
"""
from __future__ import annotations

import math
import struct

from ptxld.ptx.nodes import Address, Float, Int, Name, PredPair

_F = struct.Struct("<f")
_I = struct.Struct("<I")
M32, M64 = 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF
SPECIAL = ("%tid", "%ntid", "%ctaid", "%nctaid")
_BYTES = {".b8": 1, ".u8": 1, ".b32": 4, ".u32": 4, ".s32": 4, ".f32": 4}


def f32(x: float) -> float:
    try:
        return _F.unpack(_F.pack(x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def s32(v: int) -> int:
    return v - (1 << 32) if v & 0x80000000 else v


def bits_of(x: float) -> int:
    return _I.unpack(_F.pack(x))[0]


def float_of(b: int) -> float:
    return _F.unpack(_I.pack(b & M32))[0]


class ScalarInterpreter:
    def __init__(self, module, entry: str):
        fn = module.functions[entry]
        code = [i for i in module.instructions if i.function is fn]
        self.labels = {lab.name: k for k, i in enumerate(code) for lab in i.labels}
        self.params = [p.name for p in fn.params]
        self.shared_off: dict[str, int] = {}
        self.shared_size = 0
        self.is_float: dict[str, bool] = {}
        self.code = [self._decode(i) for i in code]

    # ------------------------------------------------------------------ decoding (once)
    def _var(self, ins, name):
        return ins.scope.lookup(name) if ins.scope is not None else None

    def _operand(self, ins, o):
        if isinstance(o, Int):
            return ("i", o.value)
        if isinstance(o, Float):
            return ("i", float_of(o.bits) if o.bits is not None and o.width == 32 else o.value)
        if isinstance(o, Address):
            base = None if o.base is None else self._operand(ins, o.base)
            return ("a", base, o.offset)
        if isinstance(o, PredPair):
            return ("pp", o.first.name, o.second.name)
        assert isinstance(o, Name), o
        if o.name in SPECIAL:
            return ("s", o.name, "xyz".index(o.component or "x"))
        v = self._var(ins, o.name)
        if v is not None and v.space == ".shared":
            if o.name not in self.shared_off:
                align = v.align or 4
                self.shared_size = (self.shared_size + align - 1) // align * align
                self.shared_off[o.name] = self.shared_size
                self.shared_size += _BYTES[v.type] * math.prod(d for d in v.dims if d)
            return ("i", self.shared_off[o.name])
        if v is not None and v.space == ".param":
            return ("p", o.name)
        if v is not None and v.space == ".reg":
            self.is_float[o.name] = v.type in (".f32", ".f64")
        return ("r", o.name)

    def _decode(self, ins):
        ops = [self._operand(ins, o) for o in ins.operands]
        guard = None if ins.guard is None else (ins.guard.name.name, ins.guard.negated)
        target = self.labels.get(ins.operands[0].name) if ins.opcode.startswith("bra") else None
        return ins.opcode, ops, guard, target

    # ------------------------------------------------------------------ running
    def run(self, grid, block, params: dict, gmem: bytearray, ctas=None) -> int:
        """Run the CTAs `ctas` (linear ids; default all) -> thread-instructions executed."""
        gx, gy = grid[0], grid[1]
        total = 0
        for c in (range(gx * gy) if ctas is None else ctas):
            total += self.cta((c % gx, c // gx, 0), grid, block, params, gmem)
        return total

    def cta(self, ctaid, grid, block, params, gmem) -> int:
        smem = bytearray(self.shared_size)
        n = block[0] * block[1] * block[2]
        counts = [0] * n
        threads = {}
        for t in range(n):
            tid = (t % block[0], (t // block[0]) % block[1], t // (block[0] * block[1]))
            env = {"%tid": tid, "%ntid": block, "%ctaid": ctaid, "%nctaid": grid}
            threads[t] = self.thread(env, params, gmem, smem, counts, t)
        reply = dict.fromkeys(threads)
        while threads:
            requests = {}
            for t, g in list(threads.items()):
                try:
                    requests[t] = g.send(reply[t])
                except StopIteration:
                    del threads[t]
            reply = {}
            for t, req in requests.items():
                if req[0] == "bar":
                    reply[t] = None
                else:                                  # ("shfl", value, source lane, in range)
                    warp = t - t % 32
                    src = warp + req[2]
                    ok = req[3] and src in requests
                    reply[t] = (requests[src][1] if ok else req[1], ok)
        return sum(counts)

    def thread(self, env, params, gmem, smem, counts, t):
        regs = {}
        is_float = self.is_float
        code = self.code
        pc = steps = 0

        def val(o):
            k = o[0]
            if k == "r":
                return regs[o[1]]
            if k == "i":
                return o[1]
            if k == "s":
                return env[o[1]][o[2]]
            return params[o[1]]

        while True:
            op, ops, guard, target = code[pc]
            steps += 1
            pc += 1
            if guard is not None and regs[guard[0]] == guard[1]:
                continue
            d = ops[0][1] if ops and ops[0][0] == "r" else None
            if op == "bra" or op == "bra.uni":
                pc = target
            elif op == "ret":
                counts[t] = steps
                return
            elif op == "bar.sync":
                yield ("bar",)
            elif op.startswith("ld.param"):
                regs[d] = params[ops[1][1][1]]
            elif op.startswith("mov") or op == "cvta.to.global.u64":
                v = val(ops[1])
                src_float = ops[1][0] == "r" and is_float.get(ops[1][1], False)
                if is_float.get(d, False) and not src_float and not isinstance(v, float):
                    v = float_of(v)
                elif src_float and not is_float.get(d, False):
                    v = bits_of(v)
                regs[d] = v
            elif op == "add.f32":
                regs[d] = f32(val(ops[1]) + val(ops[2]))
            elif op == "sub.f32":
                regs[d] = f32(val(ops[1]) - val(ops[2]))
            elif op == "mul.f32":
                regs[d] = f32(val(ops[1]) * val(ops[2]))
            elif op == "fma.rn.f32":
                regs[d] = f32(val(ops[1]) * val(ops[2]) + val(ops[3]))
            elif op == "max.f32":
                a, b = val(ops[1]), val(ops[2])
                regs[d] = b if a != a else a if b != b else max(a, b)
            elif op == "ex2.approx.f32":
                x = val(ops[1])
                regs[d] = f32(2.0 ** x) if x < 128 else math.inf
            elif op == "rcp.rn.f32":
                x = val(ops[1])
                regs[d] = f32(1.0 / x) if x != 0 else math.copysign(math.inf, x)
            elif op == "add.s32":
                regs[d] = (val(ops[1]) + val(ops[2])) & M32
            elif op == "add.s64":
                regs[d] = (val(ops[1]) + val(ops[2])) & M64
            elif op == "mul.lo.s32":
                regs[d] = (val(ops[1]) * val(ops[2])) & M32
            elif op == "mad.lo.s32":
                regs[d] = (val(ops[1]) * val(ops[2]) + val(ops[3])) & M32
            elif op == "shl.b32":
                regs[d] = (val(ops[1]) << val(ops[2])) & M32
            elif op == "shl.b64":
                regs[d] = (val(ops[1]) << val(ops[2])) & M64
            elif op == "mul.wide.s32":
                regs[d] = (s32(val(ops[1])) * s32(val(ops[2]))) & M64
            elif op in ("mul.wide.u32", "mul.wide.u16"):
                regs[d] = val(ops[1]) * val(ops[2])
            elif op == "cvt.s64.s32":
                regs[d] = s32(val(ops[1])) & M64
            elif op == "cvt.u64.u32":
                regs[d] = val(ops[1])
            elif op.startswith("setp."):
                a, b = s32(val(ops[1])), s32(val(ops[2]))
                cmp = op.split(".")[1]
                regs[d] = (a < b if cmp == "lt" else a >= b if cmp == "ge" else a > b if cmp == "gt"
                           else a != b if cmp == "ne" else a == b)
            elif op == "and.pred":
                regs[d] = val(ops[1]) and val(ops[2])
            elif op == "or.pred":
                regs[d] = val(ops[1]) or val(ops[2])
            elif op == "not.pred":
                regs[d] = not val(ops[1])
            elif op == "shfl.sync.bfly.b32":
                lane = (t % 32) ^ val(ops[2])
                got, ok = yield ("shfl", val(ops[1]), lane, lane <= (val(ops[3]) & 31))
                regs[ops[0][1]] = got
                regs[ops[0][2]] = ok
            elif op.startswith(("ld.", "st.", "atom.")):
                typ = op.rsplit(".", 1)[1]
                a = ops[0] if op.startswith("st.") else ops[1]
                addr = (0 if a[1] is None else val(a[1])) + a[2]
                mem = smem if ".shared." in op else gmem
                fmt = "<f" if typ == "f32" else "<B" if typ == "u8" else "<I"
                if op.startswith("ld."):
                    regs[d] = struct.unpack_from(fmt, mem, addr)[0]
                elif op.startswith("st."):
                    struct.pack_into(fmt, mem, addr, val(ops[1]))
                else:                                   # atom.<space>.add.u32
                    old = struct.unpack_from(fmt, mem, addr)[0]
                    struct.pack_into(fmt, mem, addr, (old + val(ops[2])) & M32)
                    regs[d] = old
            else:
                raise NotImplementedError(op)
