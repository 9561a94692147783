"""Run NVIDIA ptxas on generated cases and recover one verdict per case.

Cases that share a header, module-scope declarations and options are assembled together, one
kernel each, and every message is attributed by its line. The batch result stands for a case
only where that is sound:

* a batch that assembles cleanly (exit 0) accepts all its cases;
* a case with an error on one of its own lines is rejected with those errors;
* cases after a fatal error (ptxas stops there), cases without errors in a failing batch (ptxas
  stops before later phases, so they are not proven clean) are run again in a new batch;
* a crash, a timeout or a message without a line of ours splits the batch in halves, down to
  single cases. A single case that crashes (SIGSEGV) is repeated up to `CRASH_RETRIES` times
  before it is recorded as a crash;
* `.v8` loads always run alone: some crash ptxas only now and then, and less often in company
  (`crash_prone`), so a batch could record an accept their own module does not get.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable

from .generate import Case

MAX_BATCH = 120
CRASH_RETRIES = 3
TIMEOUT_S = 120
WORKERS = 2          # the harness shares a 2-core machine

_MSG = re.compile(r"^ptxas (?P<file>.+?), line (?P<line>\d+); (?P<sev>error|warning|fatal|info)\s*: (?P<text>.*)$")
_BARE = re.compile(r"^ptxas (?P<sev>error|warning|fatal|info)\s*: (?P<text>.*)$")
ABORTED = "Ptx assembly aborted due to errors"
_V8_LOAD = re.compile(r"(?:^|\s)(?:ld|wmma\.load)\S*\.v8(?:\.|\s)")
_LINE_IN_TEXT = re.compile(r"line '(\d+)'")     # "Program uses 16-bit address on line '18' ..."


def find_ptxas() -> str | None:
    """`$PTXAS` if it names an executable, else `ptxas` on PATH, else None."""
    exe = os.environ.get("PTXAS")
    if exe and shutil.which(exe):
        return shutil.which(exe)
    return shutil.which("ptxas")


@lru_cache(maxsize=None)
def ptxas_version(ptxas: str) -> str:
    out = subprocess.run([ptxas, "--version"], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"V(\d+\.\d+\.\d+)", out)
    if not m:
        raise RuntimeError(f"cannot read the version of {ptxas}: {out!r}")
    return m.group(1)


@dataclass
class Message:
    severity: str          # error | warning | fatal | info
    text: str
    line: int | None       # None: no line, or a line of another file (<builtin>)


@dataclass
class Run:
    returncode: int
    messages: list[Message]
    crashed: bool = False
    timed_out: bool = False


def parse_messages(output: str, filename: str) -> list[Message]:
    out = []
    output = output.replace(f"'{filename}'", "'<input>'")   # "Missing .version ... file '/tmp/...'"
    for raw in output.splitlines():
        m = _MSG.match(raw.strip())
        if m:
            line = int(m["line"]) if m["file"] == filename else None
            text = m["text"].strip() if line else f"{m['file']}, line {m['line']}: {m['text'].strip()}"
            out.append(Message(m["sev"], text, line))
            continue
        m = _BARE.match(raw.strip())
        if m and m["text"].strip() != ABORTED:
            out.append(Message(m["sev"], m["text"].strip(), None))
        elif raw.strip() and not m:
            out.append(Message("error", raw.strip(), None))   # anything unexpected counts
    return out


def assemble(ptxas: str, text: str, arch: str, flags: Iterable[str] = ()) -> Run:
    with tempfile.TemporaryDirectory(prefix="ptxas_oracle_") as d:
        src = os.path.join(d, "m.ptx")
        with open(src, "w") as fh:
            fh.write(text)
        cmd = [ptxas, f"-arch={arch}", *flags, src, "-o", os.path.join(d, "m.cubin")]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return Run(-1, [], timed_out=True)
        msgs = parse_messages(p.stdout + p.stderr, src)
        return Run(p.returncode, msgs, crashed=p.returncode < 0 or p.returncode in (134, 139))


@dataclass
class Verdict:
    verdict: str                                   # accept | reject | crash
    errors: list[tuple[int | None, str]] = field(default_factory=list)    # error and fatal
    warnings: list[tuple[int | None, str]] = field(default_factory=list)
    runs: int = 1
    crashes: int = 0
    mode: str = "batch"
    fatal: int | None = None     # line of the first fatal error (ptxas stops there); 0: no line

    def record(self, case: Case, ptxas_version_: str) -> dict:
        return {"key": case.key(ptxas_version_), "id": case.id, "verdict": self.verdict,
                "errors": [list(e) for e in self.errors], "warnings": [list(w) for w in self.warnings],
                "runs": self.runs, "crashes": self.crashes, "mode": self.mode,
                "fatal": self.fatal, "ptxas": ptxas_version_}


def _split(messages: list[Message]):
    errors = [(m.line, m.text) for m in messages if m.severity in ("error", "fatal")]
    # "info" (e.g. "Potential out of bound access ...") is advice, kept with the warnings
    warnings = [(m.line, m.text) for m in messages if m.severity in ("warning", "info")]
    return errors, warnings


def _fatal(messages: list[Message]) -> int | None:
    return next((m.line or 0 for m in messages if m.severity == "fatal"), None)


def run_single(ptxas: str, case: Case) -> Verdict:
    crashes = 0
    for attempt in range(1, CRASH_RETRIES + 1):
        r = assemble(ptxas, case.text, case.arch, case.flags)
        if not (r.crashed or r.timed_out):
            errors, warnings = _split(r.messages)
            verdict = "accept" if r.returncode == 0 else "reject"
            return Verdict(verdict, errors, warnings, attempt, crashes, "single", _fatal(r.messages))
        crashes += 1
    errors, warnings = _split(r.messages)
    return Verdict("crash", errors, warnings, CRASH_RETRIES, crashes, "single", _fatal(r.messages))


class Batcher:
    """Resolves one group of cases that share `Case.batch_key`."""

    def __init__(self, ptxas: str):
        self.ptxas = ptxas
        self.invocations = 0

    def resolve(self, cases: list[Case]) -> dict[str, Verdict]:
        if len(cases) == 1:
            self.invocations += 1
            return {cases[0].id: run_single(self.ptxas, cases[0])}
        if len(cases) > MAX_BATCH:
            out: dict[str, Verdict] = {}
            for i in range(0, len(cases), MAX_BATCH):
                out.update(self.resolve(cases[i:i + MAX_BATCH]))
            return out
        head = cases[0].head_lines()
        lines = list(head)
        spans = []                                  # (first line, last line) of each kernel
        for i, c in enumerate(cases):
            kl = c.kernel_lines(f"k{i}")
            spans.append((len(lines) + 1, len(lines) + len(kl)))
            lines += kl
        self.invocations += 1
        r = assemble(self.ptxas, "\n".join(lines) + "\n", cases[0].arch, cases[0].flags)
        if r.crashed or r.timed_out or any(m.line is None or m.line > spans[-1][1]
                                             for m in r.messages):
            return self._halves(cases)
        per_case: list[list[Message]] = [[] for _ in cases]
        shared: list[Message] = []
        for m in r.messages:
            if m.line <= len(head):
                shared.append(m)
                continue
            for i, (a, b) in enumerate(spans):
                if a <= m.line <= b:
                    shift = len(head) + 1 - a
                    text = _LINE_IN_TEXT.sub(lambda x: f"line '{int(x[1]) + shift}'", m.text)
                    per_case[i].append(Message(m.severity, text, m.line + shift))
                    break
        if r.returncode == 0:
            out = {}
            for c, msgs in zip(cases, per_case):
                errors, warnings = _split(shared + msgs)
                out[c.id] = Verdict("accept", errors, warnings)
            return out
        fatal_at = next((i for i, msgs in enumerate(per_case)
                         if any(m.severity == "fatal" for m in msgs)), None)
        settled = len(cases) if fatal_at is None else fatal_at + 1
        out, again = {}, []
        for i, c in enumerate(cases[:settled]):
            errors, warnings = _split(shared + per_case[i])
            if any(m.severity in ("error", "fatal") for m in shared + per_case[i]):
                out[c.id] = Verdict("reject", errors, warnings, fatal=_fatal(shared + per_case[i]))
            else:
                again.append(c)
        again += cases[settled:]
        if not out:                                  # no case to blame: narrow it down
            return self._halves(cases)
        if again:
            out.update(self.resolve(again))
        return out

    def _halves(self, cases: list[Case]) -> dict[str, Verdict]:
        mid = len(cases) // 2
        out = self.resolve(cases[:mid])
        out.update(self.resolve(cases[mid:]))
        return out


def crash_prone(case: Case) -> bool:
    """`.v8` loads: ptxas 13.0 segfaults on some of them only now and then, and less often when
    they share a module with other kernels (ptxas-vs-seeds §5.2), so they always run alone."""
    return _V8_LOAD.search(case.text) is not None


def run_cases(cases: Iterable[Case], ptxas: str, *, workers: int = WORKERS,
              progress=None) -> tuple[dict[str, Verdict], int]:
    """Verdicts for `cases` (by id) and the number of ptxas invocations."""
    groups: dict[tuple, list[Case]] = {}
    for c in cases:
        key = ("single", c.id) if crash_prone(c) else c.batch_key
        groups.setdefault(key, []).append(c)
    out: dict[str, Verdict] = {}
    total = 0

    def work(group):
        b = Batcher(ptxas)
        return b.resolve(group), b.invocations

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for done, (verdicts, n) in enumerate(pool.map(work, list(groups.values())), 1):
            out.update(verdicts)
            total += n
            if progress:
                progress(done, len(groups), len(out), total)
    return out, total
