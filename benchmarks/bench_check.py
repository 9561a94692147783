"""`ptxld check` against `ptxas -O0` on two large modules, in the same run.

(a) modern: the nvcc 13.0 sm_90 kernels of tests/kernels/ptx/sm_90 replicated (every defined
    kernel, function and module variable renamed per copy) into one ~40k-line module;
(b) legacy: gpuocelot's renderer.ptx (143k lines, PTX 2.3 / sm_20; ptxas assembles it for sm_75).

Each tool runs as a user runs it (a fresh process per run), alternating, `--runs` times after one
warm-up run each; the table gives the median wall time and the median CPU time of the child
(user + sys). ptxld is the console script installed beside this interpreter (not a version
manager's shim, which adds its own start-up; when `ptxld` on PATH is another file, that is timed
too), with Python's bytecode cache allowed (as after `pip install`), and with its opcode cache
(filled by the warm-up run, in a folder of the benchmark's own) and without it (`--no-cache`). `--venv` also installs ptxld into a fresh virtual environment (as `pipx` does)
and times that: an environment whose site-packages runs start-up hooks (`.pth` files) slows
every Python program started in it, ptxld included.

    python benchmarks/bench_check.py [--runs 7] [--venv] [--legacy PATH] [--keep DIR] [--tree [NAME=]PATH ...]
                                     [--kernels-at REV]

`--kernels-at REV` builds (a) from the kernel files as they were at git revision REV: the kernel
set grows, so a module built from today's files is not the module an earlier figure was measured
on (`--kernels-at 831b22c` rebuilds the 40,258-line module of the 2026-11-21 figures).
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODERN_SOURCES = ROOT / "tests" / "kernels" / "ptx" / "sm_90"
LEGACY = Path(os.environ.get(
    "PTXLD_BENCH_LEGACY",
    "/work/shared/corpus/ptx/gtcasl__gpuocelot/tests/ptx/unstructured/renderer.ptx"))
TARGET_LINES = 40_000
# ptxld: "error[PTX0001]: ..." (or "file:3:5: error[...]"); ptxas: "ptxas file, line 3; error   : ..."
_ERROR = re.compile(r"(?m)(?:^|: )error\[|; (?:error|fatal)\s*:")
_WARNING = re.compile(r"(?m)(?:^|: )warning\[|; warning\s*:")
_HEADER = re.compile(r"^\s*\.(version|target|address_size)\b")


def _defined_names(text: str) -> list[str]:
    """Module-scope names a copy must rename: defined kernels/functions and variables."""
    from ptxld.ptx.parser import parse
    m = parse(text)
    names = [f.name for f in m.functions.values() if f.linkage != ".extern"]
    names += [n for n, v in m.scope.names.items()
              if getattr(v, "linkage", None) != ".extern" and n not in names]
    return names


def build_modern(target_lines: int = TARGET_LINES, sources: Path = MODERN_SOURCES) -> str:
    sources = sorted(sources.glob("*.ptx"))
    header = [ln for ln in sources[0].read_text().splitlines() if _HEADER.match(ln)]
    prepared = []
    for src in sources:
        text = src.read_text()
        body = "\n".join(ln for ln in text.splitlines() if not _HEADER.match(ln))
        names = sorted(_defined_names(text), key=len, reverse=True)
        pattern = re.compile(r"(?<![\w$%])(" + "|".join(map(re.escape, names)) + r")(?![\w$])")
        prepared.append((body, pattern))
    out, lines, copy = list(header), len(header), 0
    while lines < target_lines:
        body, pattern = prepared[copy % len(prepared)]
        renamed = pattern.sub(lambda m, c=copy: f"{m.group(1)}_c{c}", body)
        out.append(renamed)
        lines += renamed.count("\n") + 1
        copy += 1
    return "\n".join(out) + "\n"


def kernels_at(rev: str, where: Path) -> Path:
    """The .ptx files of MODERN_SOURCES as they were at git revision `rev`, written to `where`."""
    where.mkdir()
    rel = MODERN_SOURCES.relative_to(ROOT).as_posix()

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                              check=True).stdout

    for name in git("ls-tree", "--name-only", f"{rev}:{rel}").split():
        if name.endswith(".ptx"):
            (where / name).write_text(git("show", f"{rev}:{rel}/{name}"))
    return where


def _timed(cmd: list[str]) -> tuple[float, float, int, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=_ENV)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.returncode, p.stdout + p.stderr


# Python may keep its bytecode cache (an editable install then compiles ptxld once, not per run).
_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def ptxld_command(path: Path, python: str = sys.executable) -> list[str]:
    exe = Path(python).parent / "ptxld"
    return [str(exe), "check", str(path)] if exe.exists() else [python, "-m", "ptxld.cli", "check", str(path)]


def fresh_venv(where: Path) -> str | None:
    """A new virtual environment with ptxld installed from this checkout; its python, or None."""
    try:
        subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, capture_output=True)
        python = str(where / "bin" / "python")
        subprocess.run([python, "-m", "pip", "install", "-q", str(ROOT)], check=True, capture_output=True,
                       timeout=600)
        return python
    except (subprocess.SubprocessError, OSError) as e:
        print(f"--venv: could not install ptxld into a fresh environment ({e}); skipped", file=sys.stderr)
        return None


def ptxas_command(path: Path, arch: str) -> list[str]:
    return [os.environ.get("PTXAS") or shutil.which("ptxas") or "ptxas", "-O0", f"-arch={arch}",
            str(path), "-o", os.devnull]


def in_process(path: Path, runs: int) -> dict:
    """Where ptxld's time goes without process start-up, in one process with the cyclic GC off
    (as `ptxld check` runs): parsing as the checker does (operands on demand), and the whole
    check (parse included)."""
    import gc

    from ptxld.checker import check_source
    from ptxld.ptx.parser import parse
    text = path.read_text()
    out = {}
    gc.disable()
    try:
        for label, fn in (("parse", lambda t: parse(t, eager=False)), ("check", check_source)):
            times = []
            for _ in range(runs):
                t0 = time.process_time()
                fn(text)
                times.append(time.process_time() - t0)
                gc.collect()
            out[f"in-process {label}"] = statistics.median(times)
    finally:
        gc.enable()
    return out


def bench(name: str, path: Path, arch: str, runs: int, venv_python: str | None = None,
          trees: dict | None = None) -> dict:
    tools = {"ptxld check": ptxld_command(path), "ptxas -O0": ptxas_command(path, arch)}
    # without the opcode cache (a machine's first check): every run works every opcode out
    cold = ptxld_command(path)
    tools["ptxld check --no-cache"] = cold[:-1] + ["--no-cache", cold[-1]]
    for label, tree in (trees or {}).items():
        # a checkout's code, as bench_trees.py starts it (its `src` on PYTHONPATH)
        tools[f"ptxld check ({label})"] = ["env", f"PYTHONPATH={tree / 'src'}", sys.executable, "-m",
                                           "ptxld.cli", "check", str(path)]
    on_path = shutil.which("ptxld")
    if on_path and Path(on_path).resolve() != Path(tools["ptxld check"][0]).resolve():
        # e.g. a version manager's shim (pyenv's is a shell script): what typing `ptxld` runs
        tools["ptxld check (via PATH)"] = [on_path, "check", str(path)]
    if venv_python:
        tools["ptxld check (fresh venv)"] = ptxld_command(path, venv_python)
    samples = {t: [] for t in tools}
    status = {}
    for cmd in tools.values():
        _timed(cmd)  # warm-up: bytecode cache, page cache
    for _ in range(runs):
        for tool, cmd in tools.items():
            wall, cpu, rc, out = _timed(cmd)
            samples[tool].append((wall, cpu))
            status[tool] = (rc, len(_ERROR.findall(out)), len(_WARNING.findall(out)))
    row = {"case": name, "file": str(path), "lines": path.read_text().count("\n"), "arch": arch,
           "tools": list(tools)}
    for tool in tools:
        row[tool] = {"wall": statistics.median(w for w, _ in samples[tool]),
                     "cpu": statistics.median(c for _, c in samples[tool]),
                     "exit": status[tool][0], "errors": status[tool][1], "warnings": status[tool][2],
                     "command": " ".join(tools[tool])}
    # the rounds alternate the tools, so each round gives a ratio of its own
    for tool in tools:
        if tool != "ptxas -O0":
            ratios = sorted(p[0] / q[0] for p, q in zip(samples["ptxas -O0"], samples[tool]))
            row[tool]["rounds"] = (ratios[0], statistics.median(ratios), ratios[-1])
    row.update(in_process(path, runs))
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--legacy", type=Path, default=LEGACY)
    ap.add_argument("--keep", type=Path, help="write the generated modern module here")
    ap.add_argument("--venv", action="store_true", help="also time ptxld installed in a fresh venv")
    ap.add_argument("--kernels-at", metavar="REV",
                    help="build (a) from tests/kernels/ptx/sm_90 as of this git revision")
    ap.add_argument("--tree", action="append", default=[], metavar="[NAME=]PATH",
                    help="also time a checkout's code (`python -m ptxld.cli` with PATH/src on "
                    "PYTHONPATH), e.g. --tree this=. to time this checkout where the console script "
                    "is another install's")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench_check_") as d:
        _ENV["PTXLD_CACHE_DIR"] = str(Path(d) / "ptxld-cache")  # not the user's; warm-up fills it
        venv_python = fresh_venv(Path(d) / "venv") if args.venv else None
        modern = (args.keep or Path(d)) / "modern_sm90_40k.ptx"
        modern.parent.mkdir(parents=True, exist_ok=True)
        sources = kernels_at(args.kernels_at, Path(d) / "kernels") if args.kernels_at else MODERN_SOURCES
        modern.write_text(build_modern(sources=sources))
        trees = {}
        for spec in args.tree:
            label, _, path = spec.rpartition("=")
            trees[label or path] = Path(path).resolve()
        label = "(a) modern, nvcc sm_90 kernels replicated"
        if args.kernels_at:
            label += f" (kernels of {args.kernels_at})"
        rows = [bench(label, modern, "sm_90", args.runs, venv_python, trees)]
        if args.legacy.exists():
            rows.append(bench("(b) legacy, gpuocelot renderer.ptx", args.legacy, "sm_75", args.runs,
                              venv_python, trees))
        else:
            print(f"legacy module {args.legacy} not found; skipped", file=sys.stderr)
    print(f"{time.strftime('%Y-%m-%d %H:%M')}  {platform.node()}  {platform.processor() or platform.machine()}"
          f"  {os.cpu_count()} cpus  load {os.getloadavg()[0]:.1f}  Python {platform.python_version()}")
    print("| case | lines | tool | wall / cpu (s) | ptxas ÷ tool, wall | cpu |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        ref = r["ptxas -O0"]
        for tool in r["tools"]:
            x = r[tool]
            ratio = "" if tool == "ptxas -O0" else f"{ref['wall'] / x['wall']:.2f}x | {ref['cpu'] / x['cpu']:.2f}x"
            print(f"| {r['case']} | {r['lines']} | {tool} | {x['wall']:.3f} / {x['cpu']:.3f} | "
                  f"{ratio or ' | '} |")
    for r in rows:
        print(f"  {r['case']}: in-process parse {r['in-process parse']:.3f} s, "
              f"check {r['in-process check']:.3f} s (CPU, one process)")
        for tool in r["tools"]:
            if "rounds" in r[tool]:
                lo, mid, hi = r[tool]["rounds"]
                print(f"  {r['case']}: {tool}: ptxas ÷ ptxld per round (wall) min {lo:.2f}x, "
                      f"median {mid:.2f}x, max {hi:.2f}x")
        for tool in r["tools"]:
            x = r[tool]
            print(f"  {r['case']}: `{x['command']}` exit {x['exit']}, "
                  f"{x['errors']} errors, {x['warnings']} warnings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
