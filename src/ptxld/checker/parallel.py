"""Checking one big module on several cores.

Each worker checks the whole module text with the bodies of the other workers' functions blanked
out (every character but newlines replaced by a space), so offsets, lines and columns stay exact
and module-level declarations and function headers are seen by every worker. Diagnostics found
by more than one worker (module-level ones) are kept once.
"""
from __future__ import annotations

import gc
import multiprocessing
import os
import re
from concurrent.futures import ProcessPoolExecutor

from ..diagnostics import Diagnostic

# Below this size one process is faster than starting workers.
MIN_BYTES = 1_000_000

# Comments and strings (whose braces do not count), and braces.
_SCAN = re.compile(r'//[^\n]*|/\*.*?(?:\*/|\Z)|"(?:[^"\\\n]|\\.)*"?|[{}]', re.S)
_HEADER = re.compile(r"\.(?:entry|func)\b")


def function_bodies(text: str) -> list[tuple[int, int]]:
    """(start, end) of the inside of every top-level function body `{ ... }`."""
    bodies, depth, last_close, open_at = [], 0, 0, -1
    for m in _SCAN.finditer(text):
        c = m.group()
        if c == "{":
            if depth == 0:
                # the statement this `{` belongs to starts after the last top-level `;` or `}`
                # (a `;` in a comment only hides a header: that body is then not split)
                start = max(last_close, text.rfind(";", last_close, m.start()) + 1)
                open_at = m.end() if _HEADER.search(text, start, m.start()) else -1
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                if open_at >= 0:
                    bodies.append((open_at, m.start()))
                last_close = m.end()
            depth = max(depth, 0)
    return bodies


def _blank(text: str, ranges: list[tuple[int, int]]) -> str:
    out, pos = [], 0
    for s, e in ranges:
        out.append(text[pos:s])
        out.append("\n".join(" " * len(line) for line in text[s:e].split("\n")))
        pos = e
    out.append(text[pos:])
    return "".join(out)


# The module text, shared with forked workers without pickling it.
_TEXT = ""


def _work(args) -> list[Diagnostic]:
    from . import check_source
    gc.disable()  # a worker builds one tree and exits
    others, filename, strict = args
    return check_source(_blank(_TEXT, others), filename=filename, strict=strict)


def check_source_parallel(text: str, *, filename: str = "<string>", strict: bool = False,
                          workers: int | None = None) -> list[Diagnostic]:
    """Same diagnostics as `check_source`, computed by `workers` processes."""
    from . import check_source
    workers = workers or min(os.cpu_count() or 1, 4)
    bodies = function_bodies(text) if workers > 1 and len(text) >= MIN_BYTES else []
    if len(bodies) < 2:
        return check_source(text, filename=filename, strict=strict)
    # balance the work: each body, largest first, to the worker with the fewest statements so far
    load = [0] * workers
    groups: list[list[tuple[int, int]]] = [[] for _ in range(workers)]
    for b in sorted(bodies, key=lambda b: text.count(";", *b), reverse=True):
        k = load.index(min(load))
        groups[k].append(b)
        load[k] += text.count(";", *b)
    groups = [g for g in groups if g]
    jobs = []
    for i in range(len(groups)):
        others = sorted(b for j, g in enumerate(groups) if j != i for b in g)
        jobs.append((others, filename, strict))
    if "fork" not in multiprocessing.get_all_start_methods():
        return check_source(text, filename=filename, strict=strict)  # workers could not share the text
    global _TEXT
    _TEXT = text
    try:
        with ProcessPoolExecutor(len(jobs), mp_context=multiprocessing.get_context("fork")) as pool:
            results = list(pool.map(_work, jobs))
    finally:
        _TEXT = ""
    seen, out = set(), []
    for diags in results:
        for d in diags:
            key = (d.code, d.start, d.end, d.message)
            if key not in seen:
                seen.add(key)
                out.append(d)
    out.sort(key=Diagnostic.sort_key)
    return out
