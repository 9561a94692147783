"""Checking on several cores: one big module split by functions, or many files.

A big module: every process parses the whole module text but leaves out the function bodies
other processes have taken, so offsets, lines and columns stay exact and module-level
declarations and function headers are seen by every process. Bodies are handed out as the
processes reach them (`_Claims`), by size: a process that already holds more text than one
still behind it leaves the body to that one. (Taking whatever body is reached first balanced
only the parsing: the process ahead took a third more of the module and then checked it alone,
~0.1 s of a 0.6 s check.) Diagnostics found by more than one process (module-level ones) are
kept once.

The work is shared by plain `fork`: the parent takes the first share itself and each child
sends its diagnostics back pickled through a pipe. Where `fork` is missing, or a child dies,
that share is checked in the parent, so the result never depends on the processes.
"""
from __future__ import annotations

import os
import re
import struct

from ..diagnostics import Diagnostic
from . import apply_suppressions, capped, check_source, codes_to_run, diagnose, enabled_codes

_PROGRESS = struct.Struct("<qq")  # a process's (body it decides last, bytes it holds)
_INT = struct.Struct("<q")

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


def fork_map(fn, jobs: list, *, redo: bool = True) -> list:
    """[fn(job) for job in jobs], the jobs after the first each in a forked child.

    `fn` must return something picklable other than None; the job of a child that fails or dies
    is redone here, or its result is None where `redo` is false."""
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
    results = [None] * len(jobs)
    try:
        results[0] = fn(jobs[0])
    finally:  # collect every child, also when this share failed
        for i, pid, r in children:
            with os.fdopen(r, "rb") as f:
                data = f.read()
            _, status = os.waitpid(pid, 0)
            ok = status == 0 and data
            results[i] = pickle.loads(data) if ok else None
    for i in range(1, len(jobs)):
        if results[i] is None and redo:
            results[i] = fn(jobs[i])
    return results


class _Claims:
    """The function bodies as `parse(skip_bodies=...)` asks for them: `get(start)` claims a
    body for this process (None: parse it) or gives the end of one left to another (skip it).

    The state lives in memory shared across `fork`: per body a byte (claimed, left), per process
    the index of the body it decides last and the bytes of text it holds. A process leaves an
    unclaimed body to another that has not reached it yet and would still hold less with the
    bodies already left to it; the last process to reach a body always takes it. Two processes
    deciding one body at the same instant may both take it (the merge drops the repeated
    diagnostics) or, in a narrower window, both leave it: `lost()` sees that and the caller
    checks the module again in one process."""

    _CLAIMED, _LEFT = 1, 2

    def __init__(self, bodies: list[tuple[int, int]], workers: int = 1):
        import mmap
        self.ends = dict(bodies)
        self.index = {s: i for i, (s, _) in enumerate(bodies)}
        self.workers, self.me = workers, 0
        self.left: list[tuple[int, int]] = []  # (index, size) of the bodies this process left
        self.flags = mmap.mmap(-1, max(1, len(bodies)))
        # per process: the body it decides last (-1: none yet), the bytes it has claimed
        self.progress = mmap.mmap(-1, 16 * workers)
        for q in range(workers):
            _PROGRESS.pack_into(self.progress, 16 * q, -1, 0)

    def _read(self, q: int, field: int) -> int:
        return _PROGRESS.unpack_from(self.progress, 16 * q)[field]

    def _write(self, field: int, value: int) -> None:
        _INT.pack_into(self.progress, 16 * self.me + 8 * field, value)

    def get(self, start: int) -> int | None:
        i = self.index.get(start)
        if i is None:
            return None
        self._write(0, i)
        end = self.ends[start]
        if self.flags[i] & self._CLAIMED:
            return end
        state = struct.unpack_from(f"<{2 * self.workers}q", self.progress)
        held = state[2 * self.me + 1]
        left = self.left
        others = [(state[2 * q], state[2 * q + 1]) for q in range(self.workers) if q != self.me]
        while left and left[0][0] <= min(at for at, _ in others):
            left.pop(0)                  # every other process has reached these
        for at, theirs in others:
            # what that process will hold: its bodies and those this one left ahead of it
            if at < i and theirs + sum(size for k, size in left if k > at) < held:
                self.flags[i] |= self._LEFT
                left.append((i, end - start))
                return end
        self.flags[i] |= self._CLAIMED
        self._write(1, held + end - start)
        return None

    def done(self) -> None:
        """This process has parsed the whole text: leave nothing more to it."""
        self._write(0, len(self.ends))

    def lost(self) -> bool:
        """Was a body left by one process and taken by none?"""
        return self._LEFT in bytes(self.flags)


# Diagnostics whose count depends on the whole module (reported once per module, or capped):
# when a share reports one, the module is checked again in one process.
_WHOLE_MODULE = frozenset({"PTX0006", "PTX0308"})


def _check_share(job) -> list[Diagnostic]:
    text, filename, strict, claims, enabled, me = job
    claims.me, claims.left = me, []
    try:
        return diagnose(text, filename=filename, strict=strict, skip_bodies=claims, enabled=enabled)
    finally:
        claims.done()


def check_source_parallel(text: str, *, filename: str = "<string>", strict: bool = False,
                          workers: int | None = None, select=None, ignore=None) -> list[Diagnostic]:
    """Same diagnostics as `check_source`, computed by `workers` processes."""
    settings = {"filename": filename, "strict": strict, "select": select, "ignore": ignore}
    workers = workers or min(os.cpu_count() or 1, 4)
    # a non-ASCII module is one error (see `diagnose`): nothing to share out
    bodies = function_bodies(text) if workers > 1 and len(text) >= MIN_BYTES and text.isascii() else []
    if len(bodies) < 2 or not hasattr(os, "fork"):
        return check_source(text, **settings)
    enabled = enabled_codes([(select, ignore)])
    workers = min(workers, len(bodies))
    claims = _Claims(bodies, workers)
    seen, out = set(), []
    job = (text, filename, strict, claims, codes_to_run(text, enabled))
    shares = fork_map(_check_share, [job + (me,) for me in range(workers)],
                      redo=False)  # the bodies a dead child claimed are gone from every share
    if any(diags is None for diags in shares) or claims.lost():
        return check_source(text, **settings)
    for diags in shares:
        for d in diags:
            if d.code in _WHOLE_MODULE:
                return check_source(text, **settings)
            key = (d.code, d.start, d.end, d.message)
            if key not in seen:
                seen.add(key)
                out.append(d)
    out.sort(key=Diagnostic.sort_key)
    return capped(apply_suppressions(text, out, enabled, filename), filename)
