"""Source trees of ptxld side by side, in the same run: start-up and checking speed.

Each tree's `src` goes on `PYTHONPATH`; every command is a fresh process (`python -m ptxld.cli`),
the trees alternate (their order turns round by round), and the table gives the best of `--runs`
rounds (the least disturbed by other work on the machine) with the median beside it, and each
tree's best against the first tree's. Commands:

* `--version`: start-up alone (interpreter, the command-line library (click in trees before
  the argparse port), ptxld's command line);
* `check SMALL`: a short module (the first nvcc kernel file, or `--small`);
* `check MODERN`: the ~40k-line module of `bench_check.py` (nvcc sm_90 kernels replicated; from
  `--kernels DIR` to compare trees on the same PTX when the kernel set has grown since);
* in-process `check_source(MODERN)`: CPU time of the check alone, no start-up (one process per
  tree and round, the cyclic GC off as `ptxld check` runs); with `--without-records` also
  without the whole-ISA record rules (PTX08xx), the same work as a tree from before them.

    python benchmarks/bench_trees.py [NAME=]TREE [NAME=]TREE ... [--runs 9]
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
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
if len(sys.argv) > 2:  # leave out the functions of one trigger (a tree with rules as units)
    import importlib.util
    from ptxld.checker import context, registry
    if hasattr(registry, "CHECKS"):
        registry.CHECKS[sys.argv[2]].clear()
        context._CHECKS_FOR.clear()
    elif importlib.util.find_spec("ptxld.checker.records"):
        print("nan")  # record rules that cannot be left out: no comparable figure
        sys.exit(0)
text = open(sys.argv[1]).read()
gc.disable()
t0 = time.process_time()
check_source(text)
print(time.process_time() - t0)
"""


def _run(tree: Path, args: list[str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the child: user + sys, its standard output)."""
    env = dict(_ENV, PYTHONPATH=str(tree / "src"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode not in ((0,) if args[0] == "-c" else (0, 1)):  # `check` exits 1 on errors
        raise SystemExit(f"{tree}: {' '.join(args)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return wall, cpu, p.stdout


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs="+", help="checkouts of ptxld, NAME=PATH or PATH; the first is the reference")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--kernels", type=Path, default=MODERN_SOURCES,
                    help="the nvcc PTX files the modern module is built from (default: this "
                    "checkout's; give an older checkout's to compare trees on the PTX both know)")
    ap.add_argument("--small", type=Path, help="the short module (default: the first of --kernels)")
    ap.add_argument("--without-records", action="store_true",
                    help="also time the check without the PTX08xx record rules (every tree must "
                    "have rules as units; a tree from before those rules checks the same either way)")
    args = ap.parse_args(argv)
    trees = {}
    for i, spec in enumerate(args.trees):
        name, _, path = spec.rpartition("=")
        trees[name or f"tree {i + 1}"] = Path(path).resolve()
    with tempfile.TemporaryDirectory(prefix="bench_trees_") as d:
        modern = Path(d) / "modern_sm90_40k.ptx"
        modern.write_text(build_modern(sources=args.kernels))
        small = args.small or sorted(args.kernels.glob("*.ptx"))[0]
        commands = {
            "ptxld --version": ["-m", "ptxld.cli", "--version"],
            f"ptxld check {small.name} ({small.read_text().count(chr(10))} lines)":
                ["-m", "ptxld.cli", "check", str(small)],
            f"ptxld check modern ({modern.read_text().count(chr(10))} lines)":
                ["-m", "ptxld.cli", "check", str(modern)],
            "check_source(modern), in-process CPU": ["-c", _IN_PROCESS, str(modern)],
        }
        if args.without_records:
            commands["same, without the whole-ISA record rules (PTX08xx)"] = \
                ["-c", _IN_PROCESS, str(modern), "instruction"]
        samples = {(c, t): [] for c in commands for t in trees}
        cpus = {(c, t): [] for c in commands for t in trees}
        for tree in trees.values():  # warm-up: bytecode caches, page cache
            for cmd in commands.values():
                _run(tree, cmd)
        for i in range(args.runs):
            items = list(trees.items())
            order = items[i % len(items):] + items[:i % len(items)]
            for c, cmd in commands.items():
                for name, tree in order:
                    wall, cpu, out = _run(tree, cmd)
                    samples[c, name].append(float(out) if cmd[0] == "-c" else wall)
                    cpus[c, name].append(cpu)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  {platform.node()}  "
          f"{platform.machine()}  {os.cpu_count()} cpus  load {os.getloadavg()[0]:.1f}  "
          f"Python {platform.python_version()}  best of {args.runs} (median)")
    for name, tree in trees.items():
        print(f"{name}: {tree}")
    first = next(iter(trees))
    print("| command | " + " | ".join(trees) + " |")
    print("|---|" + "---:|" * len(trees))
    for c in commands:
        cells = []
        for name in trees:
            got = samples[c, name]
            if any(x != x for x in got):
                cells.append("n/a")
                continue
            cell = f"{min(got) * 1000:.1f} ms (median {statistics.median(got) * 1000:.1f})"
            if name != first and not any(x != x for x in samples[c, first]):
                cell += f" = **{min(got) / min(samples[c, first]):.3f}x**"
            if "-c" not in commands[c]:  # a process: its CPU time too, less disturbed by a busy machine
                cell += f"; CPU {min(cpus[c, name]) * 1000:.1f} ms"
                if name != first:
                    cell += f" = {min(cpus[c, name]) / min(cpus[c, first]):.3f}x"
            cells.append(cell)
        print(f"| {c} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
