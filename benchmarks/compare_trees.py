"""Same-run before/after: benchmarks/kernel_shapes.py on two source trees, alternating.

    python benchmarks/compare_trees.py BEFORE_SRC AFTER_SRC [--rounds 2] [--only NAME ...]

Each round runs kernel_shapes.py (warm, best of 3 per kernel) once with PYTHONPATH=BEFORE_SRC and
once with AFTER_SRC, in fresh processes, alternating so that drift of a shared machine hits both;
the table keeps each tree's fastest time per kernel over the rounds. The kernels, arguments and
NumPy checks are this checkout's (tests/kernels/cases_bench.py) for both trees. The last round's
AFTER run also measures the per-thread Python baseline (its rate is printed with the ratio).
Besides wall time, the AFTER launch's process CPU time is shown as a rate: on a machine shared
with other jobs, it is what an idle machine would show (wall time includes waiting for a core).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(src: str, only, baseline: bool) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = [sys.executable, str(HERE / "kernel_shapes.py"), "--quick3", "--json", out]
    if not baseline:
        cmd.append("--no-baseline")
    if only:
        cmd += ["--only", *only]
    env = dict(os.environ, PYTHONPATH=src)
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    rows = json.loads(Path(out).read_text())
    os.unlink(out)
    return {r["kernel"]: r for r in rows}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    best = {"before": {}, "after": {}}
    base_rate = {}
    for r in range(a.rounds):
        for which, src in (("before", a.before), ("after", a.after)):
            last = which == "after" and r == a.rounds - 1
            rows = run(src, a.only, baseline=last)
            for k, row in rows.items():
                if k not in best[which] or row["seconds"] < best[which][k]["seconds"]:
                    best[which][k] = row
                if last and row["baseline_rate"]:
                    base_rate[k] = row["baseline_rate"]
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; before = {a.before}, after = "
          f"{a.after}; fastest of {a.rounds} alternating rounds x best of 3")
    print("| kernel | threads | thread-instructions | before s | before M/s | after s | after M/s | "
          "speed-up | after M/s by CPU time | 1-CTA launch before / after | baseline M/s | "
          "after / baseline |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k, aft in best["after"].items():
        ti = aft["thread_instructions"]
        ra = ti / aft["seconds"]
        bef = best["before"].get(k)
        if bef is None:                   # the before tree cannot run this kernel
            before = "- | - | "
            speedup = "-"
            bef = {}
        else:
            rb = bef["thread_instructions"] / bef["seconds"]
            before = f"{bef['seconds']:.3f} | {rb / 1e6:.1f} | "
            speedup = f"{ra / rb:.1f}x"
        br = base_rate.get(k)
        print(f"| {k} | {aft['threads']:,} | {ti:,} | {before}"
              f"{aft['seconds']:.3f} | **{ra / 1e6:.1f}** | {speedup} | "
              f"{ti / aft['cpu_seconds'] / 1e6:.1f} | "
              + (f"{bef['one_cta_seconds'] * 1e3:.2f}" if "seconds" in bef else "-")
              + f" / {aft['one_cta_seconds'] * 1e3:.2f} ms | "
              + (f"{br / 1e6:.3f} | {ra / br:.0f}x |" if br else "- | - |"))


if __name__ == "__main__":
    sys.exit(main())
