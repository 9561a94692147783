"""Emulator throughput on real kernel shapes, with a per-instruction-class breakdown.

    python benchmarks/kernel_shapes.py [--quick] [--only NAME ...] [--baseline-threads N]

Kernels: tests/kernels/cuda/bench_shapes.cu (nvcc 13.0, sm_80): tiled matmul, 2-D stencil,
shared-memory reduction, block scan, histogram with atomics, softmax with shuffles; and the
corpus's tensor-core GEMM (wmma_gemm.cu) and cp.async GEMM (async_sm80.cu), both without a
per-thread baseline; at the sizes of
tests/kernels/cases_bench.py's BENCH_SIZES (65,536 threads each or more).

For each shape, in one run:
1. the emulator, warm: one warm-up launch of the small test size, then the best of three launches
   at the benchmark size (arguments built before the clock starts); each launch's output is
   checked against the NumPy reference;
2. where the time goes: one more launch with every compiled instruction timed, summed per
   instruction class (mnemonic and state space); the rest is scheduling, merging and launch;
3. the cost of a small launch: a one-CTA launch after the first, best of five (and once, the
   fixed cost of any launch: a 6-instruction kernel's);
4. the baseline (benchmarks/scalar_baseline.py): a per-thread Python interpreter over the same
   parsed program. It runs the small test size in full (output checked against the reference),
   then a subsample of the benchmark size's CTAs (about --baseline-threads threads); its rate on
   the subsample is what is reported, and the full-size time is that rate scaled up.
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

import ptxld

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests/kernels"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cases import KERNELS_DIR, assert_matches  # noqa: E402
from cases_bench import BENCH_SIZES, WARMUP  # noqa: E402
from scalar_baseline import ScalarInterpreter  # noqa: E402

# shapes the per-thread baseline does not implement (warp-wide matrix instructions)
NO_BASELINE = {"wmma_gemm", "async_gemm"}


def small_case(name):
    return WARMUP["bench_" + name]


def ptx_path(name):
    return KERNELS_DIR / small_case(name).ptx[0]


def check(case, args, expected):
    for index, want, mode in zip(case.outputs, expected, case.compare):
        assert_matches(mode, args[index], want)


def launch(kernel, case, args):
    return kernel(case.grid, case.block, args, shared_mem=case.shared_mem)


def timed_runs(mod, name, repeat):
    case = BENCH_SIZES[name]()
    kernel = mod.get_function(case.entry)
    small = small_case(name)
    launch(kernel, small, small.make_args())           # warm-up
    best = None
    for _ in range(repeat):
        args = case.make_args()
        expected = case.reference(args)
        t, c = time.perf_counter(), time.process_time()
        st = launch(kernel, case, args)
        dt, dc = time.perf_counter() - t, time.process_time() - c
        check(case, args, expected)
        if best is None or dt < best[1]:
            best = (st.thread_instructions, dt, case.grid, case.block, dc)
    return best


def instruction_class(op) -> str:
    if op.ins is None:
        return "(end of function)"
    d = op.ins.decoded
    space = d.get("space")
    return d.mnemonic + (space or "")


def breakdown(name):
    """Seconds per instruction class in one launch (a fresh module with every op timed)."""
    mod = ptxld.RawModule(path=ptx_path(name))
    prog = mod.program
    spent = defaultdict(float)
    clock = time.perf_counter

    def timed(run, cls):
        def wrapper(*a):
            t = clock()
            try:
                return run(*a)
            finally:
                spent[cls] += clock() - t
        return wrapper
    for op in prog.code:
        if getattr(op, "run", None) is not None:
            op.run = timed(op.run, instruction_class(op))
    case = BENCH_SIZES[name]()
    kernel = mod.get_function(case.entry)
    small = small_case(name)
    launch(kernel, small, small.make_args())
    spent.clear()
    args = case.make_args()
    t = clock()
    launch(kernel, case, args)
    total = clock() - t
    return total, dict(spent)


def one_cta_launch(mod, name, repeat=5):
    """Seconds of a one-CTA launch of the small case's kernel after a first one."""
    small = small_case(name)
    kernel = mod.get_function(small.entry)
    args = small.make_args()
    kernel((1, 1, 1), small.block, args, shared_mem=small.shared_mem)
    best = float("inf")
    for _ in range(repeat):
        args = small.make_args()
        t = time.perf_counter()
        kernel((1, 1, 1), small.block, args, shared_mem=small.shared_mem)
        best = min(best, time.perf_counter() - t)
    return best


TINY = """.version 8.0
.target sm_80
.address_size 64
.visible .entry tiny(.param .u64 p)
{
.reg .b32 %r<2>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [p];
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd2, %r1, 4;
add.s64 %rd3, %rd1, %rd2;
st.global.u32 [%rd3], %r1;
ret;
}
"""


def fixed_launch_cost(repeat=20) -> float:
    """Seconds of a one-CTA launch of a 6-instruction kernel after a first one: what every
    launch costs besides its instructions (arguments, batch set-up, results copied back)."""
    kernel = ptxld.RawModule(code=TINY).get_function("tiny")
    out = np.zeros(256, np.int32)
    kernel(1, 256, [out])
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        kernel(1, 256, [out])
        best = min(best, time.perf_counter() - t)
    assert np.array_equal(out, np.arange(256))
    return best


# ---------------------------------------------------------------------------- baseline

def _baseline_memory(interp, args):
    """Arrays laid out in one bytearray (256-byte aligned); scalars by value."""
    mem = bytearray()
    params, where = {}, {}
    for k, (name, a) in enumerate(zip(interp.params, args)):
        if isinstance(a, np.ndarray):
            mem.extend(bytes(-len(mem) % 256))
            where[k] = len(mem)
            params[name] = len(mem)
            mem.extend(a.tobytes())
        else:
            params[name] = int(a) & 0xFFFFFFFF
    return mem, params, where


def baseline(module, name, threads):
    """(thread-instructions, seconds) of the scalar interpreter on a subsample of the benchmark
    size; the small size is run in full first and checked."""
    small = small_case(name)
    interp = ScalarInterpreter(module, small.entry)
    args = small.make_args()
    expected = small.reference(args)
    mem, params, where = _baseline_memory(interp, args)
    interp.run(small.grid, small.block, params, mem)
    for k in small.outputs:
        a = args[k]
        args[k] = np.frombuffer(bytes(mem[where[k]:where[k] + a.nbytes]), a.dtype).copy()
    check(small, args, expected)
    case = BENCH_SIZES[name]()
    args = case.make_args()
    mem, params, _ = _baseline_memory(interp, args)
    per_cta = int(np.prod(case.block))
    n_ctas = max(1, threads // per_cta)
    t = time.perf_counter()
    count = interp.run(case.grid, case.block, params, mem, ctas=range(n_ctas))
    return count, time.perf_counter() - t, n_ctas * per_cta


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="one timed launch, no breakdown")
    ap.add_argument("--quick3", action="store_true", help="best of three launches, no breakdown")
    ap.add_argument("--only", nargs="*", default=list(BENCH_SIZES), choices=list(BENCH_SIZES))
    ap.add_argument("--baseline-threads", type=int, default=1024)
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--top", type=int, default=8, help="instruction classes shown per kernel")
    ap.add_argument("--json", help="also write the table's rows to this file")
    a = ap.parse_args()
    print(f"# ptxld kernel-shape benchmark, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"Python {platform.python_version()}, NumPy {np.__version__}, {platform.machine()}")
    print(f"fixed cost of a launch (1 CTA, 6 instructions, best of 20): "
          f"{fixed_launch_cost() * 1e3:.3f} ms")
    modules = {}
    rows = []
    for name in a.only:
        path = ptx_path(name)
        mod = modules.get(path) or modules.setdefault(path, ptxld.RawModule(path=path))
        try:
            ti, dt, grid, block, cpu = timed_runs(mod, name, 1 if a.quick else 3)
        except ptxld.emu.EmulationError as e:         # an older tree without the instructions
            print(f"\n{name}: not run: {str(e).splitlines()[0]}")
            continue
        threads = int(np.prod(grid) * np.prod(block))
        one = one_cta_launch(mod, name)
        print(f"\n{name}: grid {grid} block {block}, {threads:,} threads, {ti:,} thread-instructions "
              f"in {dt:.3f} s = {ti / dt / 1e6:.1f} M/s (process CPU time {cpu:.3f} s); "
              f"1-CTA launch {one * 1e3:.2f} ms")
        base_rate = None
        if not a.no_baseline and name not in NO_BASELINE:
            bi, bdt, bthreads = baseline(mod.module, name, a.baseline_threads)
            base_rate = bi / bdt
            print(f"  baseline (per-thread Python, {bthreads:,} of {threads:,} threads): {bi:,} in "
                  f"{bdt:.2f} s = {base_rate / 1e6:.3f} M/s -> full size ~{ti / base_rate:.0f} s; "
                  f"emulator / baseline = {ti / dt / base_rate:.0f}x")
        rows.append((name, threads, ti, dt, one, base_rate, cpu))
        if not (a.quick or a.quick3):
            total, spent = breakdown(name)
            ops = sum(spent.values())
            print(f"  breakdown of one launch ({total:.3f} s): instructions {ops / total:.0%}, "
                  f"scheduler/merge/launch {(total - ops) / total:.0%}")
            for cls, s in sorted(spent.items(), key=lambda kv: -kv[1])[:a.top]:
                print(f"    {cls:<22s} {s:8.3f} s  {s / total:6.1%}")
    if a.json:
        Path(a.json).write_text(json.dumps([
            {"kernel": name, "threads": threads, "thread_instructions": ti, "seconds": dt,
             "cpu_seconds": cpu, "one_cta_seconds": one, "baseline_rate": br}
            for name, threads, ti, dt, one, br, cpu in rows]))
    print("\n| kernel | threads | thread-instructions | seconds | M thread-instr/s | 1-CTA launch | baseline M/s | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, threads, ti, dt, one, br, _ in rows:
        b = f"{br / 1e6:.3f} | {ti / dt / br:.0f}x" if br else "- | -"
        print(f"| {name} | {threads:,} | {ti:,} | {dt:.3f} | {ti / dt / 1e6:.1f} | {one * 1e3:.2f} ms | {b} |")


if __name__ == "__main__":
    sys.exit(main())
