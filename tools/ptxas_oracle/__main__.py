"""`python -m ptxas_oracle run|compare|show` (run from tools/, or with tools/ on PYTHONPATH)."""
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


def cmd_show(args) -> int:
    """One case: its module with line numbers, ptxas's cached record and ptxld's diagnostics."""
    from . import compare
    by_id = generate.by_id()
    cache = verdicts.load()
    version = compare.cached_version(cache)
    for cid in args.ids:
        case = by_id.get(cid)
        if case is None:
            print(f"{cid}: no such case (ids look like ld.mutation/00155)", file=sys.stderr)
            return 2
        print(f"== {cid}  .target {case.target}  .version {case.version[0]}.{case.version[1]}  "
              f"-arch={case.arch} {' '.join(case.flags)}  tags {dict(case.tags)}")
        for n, line in enumerate(case.text.splitlines(), 1):
            print(f"{n:4} {'>' if n == case.focus_line else ' '} {line}")
        rec = cache.get(case.key(version))
        if rec is None:
            print("ptxas: no cached verdict")
        else:
            print(f"ptxas {rec['ptxas']}: {rec['verdict']} ({rec['mode']}, {rec['runs']} run(s), "
                  f"{rec['crashes']} crash(es))")
            for line, text in rec["errors"]:
                print(f"  line {line}: error: {text}")
            for line, text in rec["warnings"]:
                print(f"  line {line}: warning: {text}")
        print("ptxld:")
        for d in compare.checker()(case.text):
            print(f"  line {d.line}: {d.severity}[{d.code}]: {d.message}")
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
    sh = sub.add_parser("show", help="print cases with ptxas's and ptxld's verdicts")
    sh.add_argument("ids", nargs="+")
    sh.set_defaults(fn=cmd_show)
    args = ap.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
