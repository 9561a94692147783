"""`ptxld check --format json` on every committed PTX file, for comparing two source trees.

A speed change must not change a single diagnostic. This runs the command line of the tree given
by `--tree` (its `src` on `PYTHONPATH`, a fresh `python -m ptxld.cli` process per file) over the
PTX files of this checkout (kernels, examples, test data) and of any `--corpus` folders, and
writes one JSON line per file and mode (as is, `--strict`): path, exit status, standard output and standard error. Two
snapshots are compared with `--compare A B` (exit 1 and the first differences when they differ).

    python tools/check_snapshot.py --tree . --corpus /path/to/ptx/corpus -o after.jsonl
    python tools/check_snapshot.py --compare before.jsonl after.jsonl
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_FOLDERS = ("tests", "examples")


def ptx_files(corpora: list[Path]) -> list[Path]:
    files = [p for d in _FOLDERS for p in sorted((ROOT / d).rglob("*.ptx"))]
    for c in corpora:
        files += sorted(c.rglob("*.ptx"))
    return files


def snapshot_one(tree: Path, path: Path, strict: bool) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    cmd = [sys.executable, "-m", "ptxld.cli", "check", "--isolated", "--format", "json", str(path)]
    p = subprocess.run(cmd + ["--strict"] * strict, capture_output=True, text=True, env=env, cwd=ROOT)
    return {"file": str(path) + " --strict" * strict, "exit": p.returncode, "stdout": p.stdout,
            "stderr": p.stderr}


def compare(a: Path, b: Path) -> int:
    left = {r["file"]: r for r in map(json.loads, a.read_text().splitlines())}
    right = {r["file"]: r for r in map(json.loads, b.read_text().splitlines())}
    bad = 0
    for f in sorted(left.keys() | right.keys()):
        if left.get(f) != right.get(f):
            bad += 1
            if bad <= 10:
                print(f"differs: {f}")
                for k in ("exit", "stdout", "stderr"):
                    x, y = (left.get(f) or {}).get(k), (right.get(f) or {}).get(k)
                    if x != y:
                        print(f"  {k}: {str(x)[:400]!r}\n   vs {str(y)[:400]!r}")
    print(f"{len(left)} / {len(right)} files, {bad} differ")
    return 1 if bad else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path, default=ROOT, help="the ptxld checkout whose code runs")
    ap.add_argument("--corpus", type=Path, action="append", default=[], help="more PTX folders")
    ap.add_argument("-o", "--out", type=Path)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"))
    args = ap.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if not args.out:
        ap.error("-o is required (or --compare)")
    files = ptx_files(args.corpus)
    tree = args.tree.resolve()
    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda job: snapshot_one(tree, *job),
                             [(f, strict) for f in files for strict in (False, True)]))
    args.out.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    print(f"{len(rows)} files -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
