"""Parsing throughput: lines per second for the largest PTX files, next to `ptxas -O0` on the same
files in the same run (ptxas is what a user would otherwise run to read a module).

    python benchmarks/bench_parse.py [--repeat 3] [FILE ...]

Prints a Markdown table; each figure is the best of --repeat runs (process CPU time for ptxld,
wall time of the ptxas process).
"""
from __future__ import annotations

import argparse
import glob
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

from ptxld.ptx.parser import parse

CORPUS = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "corpus", "ptx")


def largest(n: int = 4) -> list[str]:
    files = glob.glob(os.path.join(CORPUS, "**", "*.ptx"), recursive=True)
    return sorted(files, key=os.path.getsize, reverse=True)[:n]


def time_parse(text: str, eager: bool, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        parse(text, eager=eager)
        best = min(best, time.perf_counter() - t0)
    return best


def time_ptxas(path: str, repeat: int) -> tuple[float, str] | None:
    """Best wall time and what ptxas made of the file (it stops early on a module it rejects,
    e.g. 32-bit code, so its time then covers only part of the work)."""
    ptxas = shutil.which("ptxas")
    if not ptxas:
        return None
    best, verdict = float("inf"), ""
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeat):
            t0 = time.perf_counter()
            r = subprocess.run([ptxas, "-O0", "-arch=sm_75", path, "-o", os.path.join(tmp, "out.cubin")],
                               capture_output=True, text=True, check=False)
            best = min(best, time.perf_counter() - t0)
            fatal = [ln for ln in r.stderr.splitlines() if "fatal" in ln or "error" in ln]
            verdict = "assembled" if r.returncode == 0 else "rejected: " + (
                fatal[0].split(":", 2)[-1].strip()[:50] if fatal else f"exit {r.returncode}")
    return best, verdict


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    files = args.files or largest()
    print(f"machine: {platform.node()} {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}")
    print("| file | lines | ptxld parse (full) | lines/s | ptxld parse (operands lazy) | ptxas -O0 | ptxas / ptxld (full) | ptxas verdict |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for path in files:
        text = open(path, encoding="utf-8", errors="replace").read()
        lines = text.count("\n") + 1
        full = time_parse(text, True, args.repeat)
        lazy = time_parse(text, False, args.repeat)
        px = time_ptxas(path, args.repeat)
        ratio = f"{px[0] / full:.2f}x" if px else "n/a"
        print(f"| {os.path.basename(path)} | {lines} | {full:.3f} s | {lines / full:,.0f} | {lazy:.3f} s | "
              f"{f'{px[0]:.3f} s' if px else 'absent'} | {ratio} | {px[1] if px else ''} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
