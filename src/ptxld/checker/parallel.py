"""Checking on several cores: one big module split by functions, or many files.

A big module: every process parses the whole module text but leaves the bodies of the other
processes' functions unparsed (`parse(skip_bodies=...)`), so offsets, lines and columns stay
exact and module-level declarations and function headers are seen by every process.
Diagnostics found by more than one process (module-level ones) are kept once.

The work is shared by plain `fork`: the parent takes the first share itself and each child
sends its diagnostics back pickled through a pipe. Where `fork` is missing, or a child dies,
that share is checked in the parent, so the result never depends on the processes.
"""
from __future__ import annotations

import os
import re

from ..diagnostics import Diagnostic

# Below this size one process is faster than starting another.
MIN_BYTES = 1_000_000

# Runs of text without braces, comments or strings, then one of those (or the end).
_SCAN = re.compile(r'[^{}"/]*+(?://[^\n]*|/\*.*?(?:\*/|\Z)|"(?:[^"\\\n]|\\.)*"?|([{}])|/|\Z)', re.S)
_HEADER = re.compile(r"\.(?:entry|func)\b")


def function_bodies(text: str) -> list[tuple[int, int]]:
    """(start, end) of the inside of every top-level function body `{ ... }`."""
    bodies, depth, last_close, open_at = [], 0, 0, -1
    for m in _SCAN.finditer(text):
        c = m.group(1)
        if c is None:
            continue
        p = m.start(1)
        if c == "{":
            if depth == 0:
                # the statement this `{` belongs to starts after the last top-level `;` or `}`
                # (a `;` in a comment only hides a header: that body is then not split)
                start = max(last_close, text.rfind(";", last_close, p) + 1)
                open_at = p + 1 if _HEADER.search(text, start, p) else -1
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                if open_at >= 0:
                    bodies.append((open_at, p))
                last_close = p + 1
            depth = max(depth, 0)
    return bodies


def fork_map(fn, jobs: list) -> list:
    """[fn(job) for job in jobs], the jobs after the first each in a forked child.

    `fn` must return something picklable; a child that fails or dies is redone here."""
    if len(jobs) < 2 or not hasattr(os, "fork"):
        return [fn(j) for j in jobs]
    import pickle
    children = []
    for i in range(1, len(jobs)):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: compute, send, exit without running the parent's cleanup
            code = 1
            try:
                os.close(r)
                data = pickle.dumps(fn(jobs[i]), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(w, "wb") as out:
                    out.write(data)
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        children.append((i, pid, r))
    results = [fn(jobs[0])] + [None] * (len(jobs) - 1)
    for i, pid, r in children:
        with os.fdopen(r, "rb") as f:
            data = f.read()
        _, status = os.waitpid(pid, 0)
        ok = status == 0 and data
        results[i] = pickle.loads(data) if ok else fn(jobs[i])
    return results


def _check_share(job) -> list[Diagnostic]:
    from . import diagnose
    text, filename, strict, skip = job
    return diagnose(text, filename=filename, strict=strict, skip_bodies=skip)


def check_source_parallel(text: str, *, filename: str = "<string>", strict: bool = False,
                          workers: int | None = None) -> list[Diagnostic]:
    """Same diagnostics as `check_source`, computed by `workers` processes."""
    from . import capped, check_source
    workers = workers or min(os.cpu_count() or 1, 4)
    bodies = function_bodies(text) if workers > 1 and len(text) >= MIN_BYTES else []
    if len(bodies) < 2 or not hasattr(os, "fork"):
        return check_source(text, filename=filename, strict=strict)
    # balance the work: each body, largest first, to the process with the fewest statements so far
    load = [0] * workers
    groups: list[list[tuple[int, int]]] = [[] for _ in range(workers)]
    for size, b in sorted(((text.count(";", *b), b) for b in bodies), reverse=True):
        k = load.index(min(load))
        groups[k].append(b)
        load[k] += size
    groups = [g for g in groups if g]
    jobs = []
    for i in range(len(groups)):
        skip = {s: e for j, g in enumerate(groups) if j != i for s, e in g}
        jobs.append((text, filename, strict, skip))
    seen, out = set(), []
    for diags in fork_map(_check_share, jobs):
        for d in diags:
            key = (d.code, d.start, d.end, d.message)
            if key not in seen:
                seen.add(key)
                out.append(d)
    out.sort(key=Diagnostic.sort_key)
    return capped(out, filename)
