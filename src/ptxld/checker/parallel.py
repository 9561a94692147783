"""Checking on several cores: one big module split by functions, or many files.

A big module: every process finds the function bodies (`function_bodies`, after the fork, so
that no process waits for the scan) and parses the module text without them, so offsets,
lines and columns stay exact and module-level declarations and function headers are seen by
every process; then each process takes the next body nobody has taken yet (`_Claims`), parses
and checks it, and takes another. A body is taken when the process is ready to check it, so the
processes end together however the bodies differ in the time they take (a process on a slower
core simply takes fewer: two busy vCPUs of a VM often run at different speeds). Diagnostics
found by more than one process (module-level ones) are kept once.

The work is shared by plain `fork`: the parent takes the first share itself and each child
sends its diagnostics back pickled through a pipe. Where `fork` is missing, or a child dies,
that share is checked in the parent, so the result never depends on the processes.
"""
from __future__ import annotations

import os
import pickle
import re

from .. import patterns
from ..diagnostics import Diagnostic
from . import apply_suppressions, capped, check_shared, check_source, codes_to_run, enabled_codes, opcache

# Below this size one process is faster than starting another.
MIN_BYTES = 1_000_000

# Everything up to the next brace that opens or closes a block (or the end), in one match: text,
# comments and strings, and a brace group on one line that holds something but no `;` (a vector
# operand `{%r1, %r2}`, never a block: a block's statements end with `;`) are skipped in C.
_SCAN = patterns.compile(r'(?:[^{}"/]++|//[^\n]*+|/\*.*?(?:\*/|\Z)|"(?:[^"\\\n]|\\.)*+"?|/'
                         r'|\{(?=[^}\n]*[^\s}])[^{}"/\n;]*+\})*+([{}]|\Z)', re.S)
_HEADER = patterns.compile(r"\.(?:entry|func)\b")


def function_bodies(text: str) -> list[tuple[int, int]]:
    """(start, end) of the inside of every top-level function body `{ ... }`."""
    bodies, depth, last_close, open_at = [], 0, 0, -1
    for m in _SCAN.finditer(text):
        c = m.group(1)
        if not c:
            break  # the end of the text
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


def fork_map(fn, jobs: list, *, redo: bool = True) -> list:
    """[fn(job) for job in jobs], the jobs after the first each in a forked child.

    `fn` must return something picklable other than None; the job of a child that fails or dies
    is redone here, or its result is None where `redo` is false."""
    if len(jobs) < 2 or not hasattr(os, "fork"):
        return [fn(j) for j in jobs]
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
    results = [None] * len(jobs)
    try:
        results[0] = fn(jobs[0])
    finally:  # collect every child, also when this share failed
        for i, pid, r in children:
            with os.fdopen(r, "rb") as f:
                data = f.read()
            # waited for, so that its CPU time is the parent's (what `time` shows a user)
            _, status = os.waitpid(pid, 0)
            try:  # the whole result or nothing: a child that dies mid-way leaves no pickle
                results[i] = pickle.loads(data) if status == 0 and data else None
            except Exception:
                results[i] = None
    for i in range(1, len(jobs)):
        if results[i] is None and redo:
            results[i] = fn(jobs[i])
    return results


class _Claims:
    """Which process has taken each function body: `take(i)` takes body i for this process
    unless another took it first. Bytes in memory shared across `fork`; two processes taking
    one body at the same instant both check it, which only repeats diagnostics the merge drops."""

    def __init__(self, count: int):
        import mmap
        self.flags = mmap.mmap(-1, max(1, count))

    def take(self, i: int) -> bool:
        if self.flags[i]:
            return False
        self.flags[i] = 1
        return True


# Diagnostics whose count depends on the whole module (reported once per module, or capped):
# when a share reports one, the module is checked again in one process.
_WHOLE_MODULE = frozenset({"PTX0006", "PTX0308"})


def _check_share(job) -> list[Diagnostic]:
    text, filename, strict, claims, enabled = job
    # every process finds the bodies itself, in parallel (the same list: the text is the same)
    bodies = function_bodies(text)
    diags = check_shared(text, bodies, claims.take, filename=filename, strict=strict, enabled=enabled)
    opcache.save()  # what this process worked out, where the command line keeps it
    return diags


def check_source_parallel(text: str, *, filename: str = "<string>", strict: bool = False,
                          workers: int | None = None, select=None, ignore=None) -> list[Diagnostic]:
    """Same diagnostics as `check_source`, computed by `workers` processes."""
    settings = {"filename": filename, "strict": strict, "select": select, "ignore": ignore}
    workers = workers or min(os.cpu_count() or 1, 4)
    # a non-ASCII module is one error (see `diagnose`): nothing to share out. Fewer than two
    # function headers: no two bodies to share (a module with more headers than bodies, e.g. of
    # prototypes, is still right when shared: a body nobody else took is checked by one process)
    headers = text.count(".entry") + text.count(".func")
    if workers < 2 or len(text) < MIN_BYTES or headers < 2 or not text.isascii() or not hasattr(os, "fork"):
        return check_source(text, **settings)
    enabled = enabled_codes([(select, ignore)])
    claims = _Claims(text.count("{"))  # at least one flag per body, before the bodies are found
    job = (text, filename, strict, claims, codes_to_run(text, enabled))
    shares = fork_map(_check_share, [job] * min(workers, headers),
                      redo=False)  # the bodies a dead child claimed are gone from every share
    if any(diags is None for diags in shares):
        return check_source(text, **settings)
    out = _merged(text, shares, enabled, filename)
    return check_source(text, **settings) if out is None else out


def _merged(text: str, shares: list, enabled, filename: str) -> list[Diagnostic] | None:
    """The shares' diagnostics, each once, sorted, suppressions applied and capped; None when a
    share reported something whose count depends on the whole module (check it in one process)."""
    seen, out = set(), []
    for diags in shares:
        for d in diags:
            if d.code in _WHOLE_MODULE:
                return None
            key = (d.code, d.start, d.end, d.message)
            if key not in seen:
                seen.add(key)
                out.append(d)
    out.sort(key=Diagnostic.sort_key)
    return capped(apply_suppressions(text, out, enabled, filename), filename)
