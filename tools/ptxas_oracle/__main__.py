"""`python -m ptxas_oracle run|compare` (run from tools/, or with tools/ on PYTHONPATH)."""
from __future__ import annotations

import argparse
import sys
import time

from . import generate, verdicts


def cmd_run(args) -> int:
    from . import ptxas as P
    exe = P.find_ptxas()
    if not exe:
        print("ptxas not found (set PTXAS or put it on PATH)", file=sys.stderr)
        return 2
    version = P.ptxas_version(exe)
    cases = generate.all_cases()
    if args.family:
        cases = [c for c in cases if c.family in args.family]
    cache = verdicts.load()
    todo = [c for c in cases if args.force or c.key(version) not in cache]
    print(f"ptxas {version}: {len(cases)} cases, {len(todo)} to run", flush=True)
    t0 = time.time()

    def progress(done, groups, n, inv):
        if done % 500 == 0 or done == groups:
            print(f"  {done}/{groups} groups, {n} cases, {inv} ptxas runs, {time.time() - t0:.0f}s",
                  flush=True)

    results, invocations = P.run_cases(todo, exe, workers=args.workers, progress=progress)
    by_id = {c.id: c for c in todo}
    for cid, v in results.items():
        rec = v.record(by_id[cid], version)
        cache[rec["key"]] = rec
    if not args.keep_stale:
        live = {c.key(version) for c in generate.all_cases()}
        cache = {k: r for k, r in cache.items() if k in live}
    verdicts.save(cache)
    print(f"{len(results)} verdicts in {time.time() - t0:.0f}s with {invocations} ptxas runs; "
          f"cache holds {len(cache)}")
    return 0


def cmd_compare(args) -> int:
    from . import compare
    result = compare.compare_all()
    print(compare.summary_text(result))
    if args.report:
        compare.write_report(result, args.report, history=args.history)
        print(f"report written to {args.report}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="ptxas_oracle")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run ptxas on cases missing from the verdict cache")
    r.add_argument("--family", action="append", help="only this family (repeatable)")
    r.add_argument("--force", action="store_true", help="re-run cached cases too")
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--keep-stale", action="store_true", help="keep records of cases no longer generated")
    r.set_defaults(fn=cmd_run)
    c = sub.add_parser("compare", help="ptxld check against the cached ptxas verdicts")
    c.add_argument("--report", help="write the markdown report here")
    c.add_argument("--history", help="JSON file of earlier runs' numbers (appended to)")
    c.set_defaults(fn=cmd_compare)
    args = ap.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
