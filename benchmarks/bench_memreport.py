"""What the memory report costs, in the same run.

    python benchmarks/bench_memreport.py [--base DIR] [--repeat N] [--rounds R]

For a few corpus kernels (nvcc 13.0 sm_90 PTX of tests/kernels/cuda/programs_basic.cu) it times a
launch without the report and with it (`memory_report=True`): each configuration runs in a fresh
process that reports its fastest of N launches; configurations alternate, for R rounds, and the
median over rounds is printed (the machine is shared: single runs drift). With `--base DIR` (a `src` tree of ptxld
from before the trace hook, e.g. `git archive <commit> src | tar -x -C DIR`) it also times the
launch without the report on that tree: the cost of the hook when it is off.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PTX = ROOT / "tests/kernels/ptx/sm_90/programs_basic.ptx"

# name -> (entry, grid, block, argument builder source)
KERNELS = {
    "vec_add 2^18": ("_Z7vec_addPKfS0_Pfi", 1024, 256,
                     "n=1<<18; a=rng.random(n,dtype=np.float32); b=a.copy(); "
                     "args=[a,b,np.zeros(n,np.float32),np.int32(n)]"),
    "reduce_shared 2^18": ("_Z13reduce_sharedPKiPii", 1024, 256,
                           "n=1<<18; args=[rng.integers(0,9,n).astype(np.int32),"
                           "np.zeros(n//256,np.int32),np.int32(n)]"),
    "transpose_tiled 512x512": ("_Z15transpose_tiledPKfPfii", (16, 16), (32, 8),
                                "n=512; args=[rng.random(n*n,dtype=np.float32),"
                                "np.zeros(n*n,np.float32),np.int32(n),np.int32(n)]"),
    "stencil_2d 256x256": ("_Z10stencil_2dPKfPfii", (16, 16), (16, 16),
                           "n=256; args=[rng.random(n*n,dtype=np.float32),"
                           "np.zeros(n*n,np.float32),np.int32(n),np.int32(n)]"),
}

CHILD = r"""
import sys, time, json
import numpy as np
import ptxld
from ptxld.emu import RawModule
if sys.argv[2] == "on":
    import ptxld.memreport  # noqa: F401  (registers the report with the emulator)
name, mode, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
entry, grid, block, build = {kernels}[name]
mod = RawModule(path={ptx!r})
k = mod.get_function(entry)
best = None
for _ in range(repeat):
    rng = np.random.default_rng(1)
    ns = {{"np": np, "rng": rng}}
    exec(build, ns)
    t = time.perf_counter()
    if mode == "on":
        r = k(grid, block, ns["args"], memory_report=True)
    else:
        r = k(grid, block, ns["args"])
    dt = time.perf_counter() - t
    best = dt if best is None else min(best, dt)
print(json.dumps(best))
"""


def child(src: Path, name: str, mode: str, repeat: int) -> float:
    code = CHILD.format(kernels=repr(KERNELS), ptx=str(PTX))
    env = dict(os.environ, PYTHONPATH=str(src))
    out = subprocess.run([sys.executable, "-c", code, name, mode, str(repeat)], env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", type=Path, default=None, help="src tree from before the hook")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=5)
    opts = ap.parse_args()
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, Python {sys.version.split()[0]}")
    print("| kernel | before the hook | report off | report on | on ÷ off |")
    print("|---|---:|---:|---:|---:|")
    for name in KERNELS:
        runs: dict[str, list[float]] = {"base": [], "off": [], "on": []}
        for _ in range(opts.rounds):
            if opts.base:
                runs["base"].append(child(opts.base, name, "off", opts.repeat))
            runs["off"].append(child(ROOT / "src", name, "off", opts.repeat))
            runs["on"].append(child(ROOT / "src", name, "on", opts.repeat))
        med = {k: statistics.median(v) for k, v in runs.items() if v}
        b = f"{med['base']:.3f} s" if "base" in med else "-"
        print(f"| {name} | {b} | {med['off']:.3f} s | {med['on']:.3f} s | "
              f"{med['on'] / med['off']:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
