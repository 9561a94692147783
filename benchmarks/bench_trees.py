"""Two source trees of ptxld side by side, in the same run: start-up and checking speed.

Each tree's `src` goes on `PYTHONPATH`; every command is a fresh process (`python -m ptxld.cli`),
the trees alternate round by round, and the table gives the best of `--runs` rounds (the least
disturbed by other work on the machine) with the median beside it. Commands:

* `--version`: start-up alone (interpreter, click, ptxld's command line);
* `check SMALL`: a short module (the first nvcc kernel file, no diagnostics);
* `check MODERN`: the ~40k-line module of `bench_check.py` (nvcc sm_90 kernels replicated);
* in-process `check_source(MODERN)`: CPU time of the check alone, no start-up (one process per
  tree and round, the cyclic GC off as `ptxld check` runs).

    python benchmarks/bench_trees.py BEFORE_TREE AFTER_TREE [--runs 9]
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_check import MODERN_SOURCES, build_modern

# Python may keep its bytecode cache (each tree is compiled once, in the warm-up round).
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
_IN_PROCESS = """
import gc, sys, time
from ptxld.checker import check_source
text = open(sys.argv[1]).read()
gc.disable()
t0 = time.process_time()
check_source(text)
print(time.process_time() - t0)
"""


def _run(tree: Path, args: list[str]) -> tuple[float, str]:
    env = dict(_ENV, PYTHONPATH=str(tree / "src"))
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        raise SystemExit(f"{tree}: {' '.join(args)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return wall, p.stdout


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args(argv)
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    with tempfile.TemporaryDirectory(prefix="bench_trees_") as d:
        modern = Path(d) / "modern_sm90_40k.ptx"
        modern.write_text(build_modern())
        small = sorted(MODERN_SOURCES.glob("*.ptx"))[0]
        commands = {
            "ptxld --version": ["-m", "ptxld.cli", "--version"],
            f"ptxld check {small.name} ({small.read_text().count(chr(10))} lines)":
                ["-m", "ptxld.cli", "check", str(small)],
            f"ptxld check modern ({modern.read_text().count(chr(10))} lines)":
                ["-m", "ptxld.cli", "check", str(modern)],
            "check_source(modern), in-process CPU": ["-c", _IN_PROCESS, str(modern)],
        }
        samples = {(c, t): [] for c in commands for t in trees}
        for tree in trees.values():  # warm-up: bytecode caches, page cache
            for cmd in commands.values():
                _run(tree, cmd)
        for i in range(args.runs):
            order = list(trees.items()) if i % 2 == 0 else list(trees.items())[::-1]
            for c, cmd in commands.items():
                for name, tree in order:
                    wall, out = _run(tree, cmd)
                    samples[c, name].append(float(out) if "in-process" in c else wall)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  {platform.node()}  "
          f"{platform.machine()}  {os.cpu_count()} cpus  load {os.getloadavg()[0]:.1f}  "
          f"Python {platform.python_version()}  best of {args.runs} (median)")
    print(f"before: {trees['before']}\nafter:  {trees['after']}")
    print("| command | before | after | after ÷ before (best) | (median) |")
    print("|---|---:|---:|---:|---:|")
    for c in commands:
        b, a = samples[c, "before"], samples[c, "after"]
        print(f"| {c} | {min(b) * 1000:.1f} ms ({statistics.median(b) * 1000:.1f}) | "
              f"{min(a) * 1000:.1f} ms ({statistics.median(a) * 1000:.1f}) | "
              f"{min(a) / min(b):.3f} | {statistics.median(a) / statistics.median(b):.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
