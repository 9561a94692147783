"""Emulator throughput: thread-instructions per second.

    python benchmarks/bench_emu.py [--quick]

1. vec_add over 2^22 threads (nvcc 13.0 PTX, sm_90, programs_basic.cu);
2. reduce_shared (shared memory + bar.sync tree) over 2^20 threads;
3. scaling of vec_add from 2^10 to 2^24 threads (stops once a size takes over 60 s);
4. a baseline: a plain per-thread Python interpreter of the same vec_add PTX (one thread at a
   time, registers in a dict), measured on 2^14 threads; the ratio is reported.
Each figure is the fastest of three runs (2^24: one run).
"""
from __future__ import annotations

import argparse
import platform
import struct
import sys
import time
from pathlib import Path

import numpy as np

import ptxld

ROOT = Path(__file__).resolve().parents[1]
PTX = ROOT / "tests/kernels/ptx/sm_90/programs_basic.ptx"
VEC_ADD = "_Z7vec_addPKfS0_Pfi"
REDUCE = "_Z13reduce_sharedPKiPii"


def run_vec_add(mod, n):
    rng = np.random.default_rng(1)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    c = np.zeros(n, np.float32)
    k = mod.get_function(VEC_ADD)
    t = time.perf_counter()
    st = k((n + 255) // 256, 256, [a, b, c, np.int32(n)])
    dt = time.perf_counter() - t
    assert np.array_equal(c, a + b)
    return st.thread_instructions, dt


def run_reduce(mod, n):
    x = np.random.default_rng(2).integers(-1000, 1000, n).astype(np.int32)
    out = np.zeros(n // 256, np.int32)
    k = mod.get_function(REDUCE)
    t = time.perf_counter()
    st = k(n // 256, 256, [x, out, np.int32(n)])
    dt = time.perf_counter() - t
    assert np.array_equal(out, x.reshape(-1, 256).sum(axis=1, dtype=np.int64).astype(np.int32))
    return st.thread_instructions, dt


# ---------------------------------------------------------------------------- baseline

class ScalarInterpreter:
    """One thread at a time, registers as Python ints in a dict: the simple design the
    vectorised emulator is measured against. Handles exactly the instructions of vec_add."""

    def __init__(self, module, entry):
        fn = module.functions[entry]
        self.code = [i for i in module.instructions if i.function is fn]
        self.labels = {lab.name: k for k, i in enumerate(self.code) for lab in i.labels}
        self.params = [p.name for p in fn.params]

    def run(self, grid, block, params, mem):
        count = 0
        for cta in range(grid):
            for tid in range(block):
                count += self.thread(cta, tid, block, params, mem)
        return count

    def thread(self, cta, tid, ntid, params, mem):
        regs = {}
        pc, steps = 0, 0
        code = self.code

        def val(o):
            if hasattr(o, "value") and not hasattr(o, "name"):
                return o.value
            if o.name == "%tid":
                return tid
            if o.name == "%ntid":
                return ntid
            if o.name == "%ctaid":
                return cta
            return regs[o.name]
        while True:
            ins = code[pc]
            steps += 1
            op = ins.opcode
            ops = ins.operands
            pc += 1
            if ins.guard is not None and regs[ins.guard.name.name] == ins.guard.negated:
                continue
            if op.startswith("ld.param"):
                regs[ops[0].name] = params[ops[1].base.name]
            elif op.startswith("mov") or op.startswith("cvta.to.global"):
                regs[ops[0].name] = val(ops[1])
            elif op == "mad.lo.s32":
                regs[ops[0].name] = (val(ops[1]) * val(ops[2]) + val(ops[3])) & 0xFFFFFFFF
            elif op == "setp.ge.s32":
                s = lambda v: v - (1 << 32) if v >> 31 else v
                regs[ops[0].name] = s(val(ops[1])) >= s(val(ops[2]))
            elif op == "bra":
                pc = self.labels[ops[0].name]
            elif op == "mul.wide.s32":
                v = val(ops[1])
                regs[ops[0].name] = ((v - (1 << 32) if v >> 31 else v) * val(ops[2])) & (2**64 - 1)
            elif op == "add.s64":
                regs[ops[0].name] = (val(ops[1]) + val(ops[2])) & (2**64 - 1)
            elif op == "ld.global.f32":
                a = val(ops[1].base) + ops[1].offset
                regs[ops[0].name] = struct.unpack_from("<f", mem, a)[0]
            elif op == "add.f32":
                regs[ops[0].name] = float(np.float32(val(ops[1])) + np.float32(val(ops[2])))
            elif op == "st.global.f32":
                struct.pack_into("<f", mem, val(ops[0].base) + ops[0].offset, val(ops[1]))
            elif op == "ret":
                return steps
            else:
                raise NotImplementedError(op)


def baseline(n):
    module = ptxld.parse(PTX.read_text(), filename=str(PTX))
    interp = ScalarInterpreter(module, VEC_ADD)
    rng = np.random.default_rng(1)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    mem = bytearray(a.tobytes() + b.tobytes() + bytes(4 * n))
    names = interp.params
    params = {names[0]: 0, names[1]: 4 * n, names[2]: 8 * n, names[3]: n}
    t = time.perf_counter()
    count = interp.run((n + 255) // 256, 256, params, mem)
    dt = time.perf_counter() - t
    c = np.frombuffer(bytes(mem[8 * n:]), np.float32)
    assert np.array_equal(c, a + b)
    return count, dt


def best(fn, mod, n, repeat=3):
    """Fastest of `repeat` runs (the machine is shared; the minimum is the least disturbed)."""
    runs = [fn(mod, n) for _ in range(repeat)]
    return min(runs, key=lambda r: r[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller sizes (smoke test)")
    args = ap.parse_args()
    mod = ptxld.RawModule(path=PTX)
    print(f"# ptxld emulator benchmark, {time.strftime('%Y-%m-%d')}, Python {platform.python_version()}, "
          f"NumPy {np.__version__}, {platform.machine()} {platform.processor() or ''}")
    n = 1 << (16 if args.quick else 22)
    run_vec_add(mod, 1 << 10)   # warm-up
    ti, dt = best(run_vec_add, mod, n)
    rate = ti / dt
    print(f"vec_add      n=2^{n.bit_length() - 1}: {ti:,} thread-instructions in {dt:.3f} s = {rate / 1e6:.1f} M/s")
    nr = 1 << (14 if args.quick else 20)
    ti, dt = best(run_reduce, mod, nr)
    print(f"reduce_shared n=2^{nr.bit_length() - 1}: {ti:,} thread-instructions in {dt:.3f} s = {ti / dt / 1e6:.1f} M/s")
    nb = 1 << (10 if args.quick else 14)
    bi, bdt = baseline(nb)
    brate = bi / bdt
    print(f"baseline (per-thread Python interpreter) vec_add n=2^{nb.bit_length() - 1}: {bi:,} "
          f"thread-instructions in {bdt:.3f} s = {brate / 1e6:.3f} M/s; emulator/baseline = {rate / brate:.0f}x")
    print("scaling (vec_add):")
    print("  threads      thread-instr     seconds   M thread-instr/s")
    top = 16 if args.quick else 24
    for e in range(10, top + 1, 2):
        ti, dt = best(run_vec_add, mod, 1 << e, repeat=3 if e <= 22 else 1)
        print(f"  2^{e:<9d} {ti:>14,}  {dt:10.3f}  {ti / dt / 1e6:10.1f}")
        if dt > 60:
            print("  (stopped: over 60 s)")
            break


if __name__ == "__main__":
    sys.exit(main())
