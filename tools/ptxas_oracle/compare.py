"""ptxld's checker against the cached ptxas verdicts: metrics, documented divergences, report.

Per case: ptxld rejects when it reports any diagnostic of severity "error". On rejections by both,
the lines agree when ptxld's first error sits on a line where ptxas reports an error. A difference
that matches an entry of tests/differential/divergences.py is documented (intended or a ptxas
defect); every other difference is a checker bug to fix.
"""
from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from . import generate, verdicts
from .generate import Case

ROOT = verdicts.ROOT
DIVERGENCES_FILE = ROOT / "tests" / "differential" / "divergences.py"
HISTORY = ROOT / "tests" / "differential" / "data" / "agreement_history.jsonl"
NOTES = ROOT / "tests" / "differential" / "report_notes.md"   # hand-written analysis, kept current
VERDICT_TARGET = 99.5
LINE_TARGET = 97.0


def checker():
    """`ptxld.check`, the contract's function."""
    import ptxld
    return ptxld.check


def load_divergences():
    spec = importlib.util.spec_from_file_location("ptxld_differential_divergences", DIVERGENCES_FILE)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod          # dataclasses look their module up there
    spec.loader.exec_module(mod)
    # intended differences, then the open checker gaps (work to do, listed so nothing else hides)
    return mod.DIVERGENCES + getattr(mod, "OPEN_GAPS", ())


@dataclass
class Outcome:
    case: Case
    ptxas: dict                     # the cached record
    errors: list                    # ptxld diagnostics of severity error
    warnings: list
    divergence: object = None       # the matching divergences.Divergence, if any

    @property
    def ptxas_verdict(self) -> str:
        return self.ptxas["verdict"]

    @property
    def ptxld_verdict(self) -> str:
        return "reject" if self.errors else "accept"

    @property
    def verdict_agrees(self) -> bool:
        return self.ptxas_verdict == self.ptxld_verdict

    @property
    def ptxas_lines(self) -> set[int]:
        return {line for line, _ in self.ptxas["errors"] if line}

    @property
    def line_checked(self) -> bool:
        """Both reject and ptxas names at least one line."""
        return self.ptxas_verdict == "reject" and bool(self.errors) and bool(self.ptxas_lines)

    @property
    def line_agrees(self) -> bool:
        return self.errors[0].line in self.ptxas_lines

    @property
    def line_sets_equal(self) -> bool:
        stop = self.ptxas.get("fatal")
        mine = {d.line for d in self.errors if not stop or d.line <= stop}
        return mine == self.ptxas_lines

    @property
    def agrees(self) -> bool:
        return self.verdict_agrees and (not self.line_checked or self.line_agrees)

    @property
    def direction(self) -> str:
        if self.ptxas_verdict == "crash":
            return "ptxas crashes"
        if not self.verdict_agrees:
            return ("ptxld accepts, ptxas rejects" if self.ptxas_verdict == "reject"
                    else "ptxld rejects, ptxas accepts")
        return "both reject, lines differ"

    def ptxas_message(self) -> str:
        errs = self.ptxas["errors"]
        lined = [e for e in errs if e[0]]
        first = (lined or errs or [[None, ""]])[0]
        return first[1]

    def ptxld_message(self) -> str:
        if not self.errors:
            return ""
        d = self.errors[0]
        return f"{d.code}: {d.message}"


@dataclass
class Result:
    outcomes: list[Outcome]
    missing: list[Case]
    ptxas_version: str
    seconds: float
    divergence_hits: Counter = field(default_factory=Counter)

    def metrics(self) -> dict:
        n = len(self.outcomes)
        documented = [o for o in self.outcomes if o.divergence is not None]
        counted = [o for o in self.outcomes if o.divergence is None]
        agree_raw = sum(o.verdict_agrees for o in self.outcomes)
        agree = sum(o.verdict_agrees for o in counted)
        lines = [o for o in counted if o.line_checked]
        line_ok = sum(o.line_agrees for o in lines)
        # stricter, reported only: ptxld's error lines are exactly ptxas's (up to where a
        # ptxas fatal error stops it)
        exact = sum(o.line_sets_equal for o in lines)
        warned = [o for o in self.outcomes if o.ptxas_verdict == "accept"
                  and any(line for line, _ in o.ptxas["warnings"])]
        return {
            "cases": n,
            "missing_verdicts": len(self.missing),
            "ptxas_accept": sum(o.ptxas_verdict == "accept" for o in self.outcomes),
            "ptxas_reject": sum(o.ptxas_verdict == "reject" for o in self.outcomes),
            "ptxas_crash": sum(o.ptxas_verdict == "crash" for o in self.outcomes),
            "documented_divergences": len(documented),
            "verdict_agreement_raw": round(100.0 * agree_raw / max(n, 1), 3),
            "verdict_agreement": round(100.0 * agree / max(len(counted), 1), 3),
            "verdict_mismatches": len(counted) - agree,
            "line_cases": len(lines),
            "line_agreement": round(100.0 * line_ok / max(len(lines), 1), 3),
            "line_mismatches": len(lines) - line_ok,
            "line_sets_equal": round(100.0 * exact / max(len(lines), 1), 3),
            # report-only: ptxas warnings (with a line) that ptxld also flags on that line
            "ptxas_warning_cases": len(warned),
            "warnings_matched": round(100.0 * sum(_warning_seen(o) for o in warned)
                                      / max(len(warned), 1), 3),
            "seconds": round(self.seconds, 1),
        }

    def mismatches(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.divergence is None and not o.agrees]


def _warning_seen(o: Outcome) -> bool:
    mine = {d.line for d in o.warnings + o.errors}
    return all(line in mine for line, _ in o.ptxas["warnings"] if line)


def compare_all(cases=None, divergences=None, version: str | None = None) -> Result:
    """Compare every case with its cached verdict from ptxas `version` (default: the version
    most of the cache was recorded with, so no ptxas is needed)."""
    cache = verdicts.load()
    version = version or cached_version(cache)
    divergences = load_divergences() if divergences is None else divergences
    check = checker()
    cases = generate.all_cases() if cases is None else cases
    t0 = time.time()
    outcomes, missing = [], []
    hits: Counter = Counter()
    for case in cases:
        rec = cache.get(case.key(version))
        if rec is None:
            missing.append(case)
            continue
        diags = check(case.text)
        o = Outcome(case, rec, [d for d in diags if d.severity == "error"],
                    [d for d in diags if d.severity == "warning"])
        if not o.agrees or o.ptxas_verdict == "crash":
            for dv in divergences:
                if dv.matches(o):
                    o.divergence = dv
                    hits[dv.id] += 1
                    break
        outcomes.append(o)
    return Result(outcomes, missing, version, time.time() - t0, hits)


def cached_version(cache: dict) -> str:
    versions = Counter(r["ptxas"] for r in cache.values())
    return versions.most_common(1)[0][0] if versions else "unknown"


# ------------------------------------------------------------------------------------------------
# Reporting

_QUOTED = re.compile(r"`[^`]*`|'[^']*'")


def _shape(text: str) -> str:
    return _QUOTED.sub("…", text)


def pattern_of(o: Outcome) -> tuple[str, str]:
    """(direction, message) — the message is ptxas's when it rejects, else ptxld's first error."""
    if o.direction == "ptxld rejects, ptxas accepts":
        d = o.errors[0]
        return o.direction, f"ptxld {d.code}: {_shape(d.message)}"
    if o.direction == "both reject, lines differ":
        return o.direction, f"ptxas: {o.ptxas_message()} / ptxld {o.errors[0].code}"
    return o.direction, f"ptxas: {o.ptxas_message()}"


def focus_shape(o: Outcome) -> str:
    """The instruction under test with register names elided (the qualifier combination)."""
    return re.sub(r"%[A-Za-z0-9_]+", "%r", o.case.focus)


def summary_text(result: Result) -> str:
    m = result.metrics()
    return (f"{m['cases']} cases ({m['missing_verdicts']} without a cached verdict), "
            f"ptxas {result.ptxas_version}: {m['ptxas_accept']} accept / {m['ptxas_reject']} reject / "
            f"{m['ptxas_crash']} crash\n"
            f"verdict agreement {m['verdict_agreement']}% (target {VERDICT_TARGET}%; raw "
            f"{m['verdict_agreement_raw']}%, {m['documented_divergences']} documented divergences), "
            f"{m['verdict_mismatches']} mismatches\n"
            f"line agreement on rejections {m['line_agreement']}% of {m['line_cases']} "
            f"(target {LINE_TARGET}%), {m['line_mismatches']} mismatches; all error lines equal in "
            f"{m['line_sets_equal']}%\n"
            f"ptxas warnings on accepted cases also flagged by ptxld on their line: "
            f"{m['warnings_matched']}% of {m['ptxas_warning_cases']} (report only)\n"
            f"checker time {m['seconds']}s")


def _git_head() -> str:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
    except OSError:
        return "?"


def record_history(result: Result, path: Path = HISTORY) -> list[dict]:
    entry = {"date": time.strftime("%Y-%m-%d %H:%M"), "commit": _git_head(), **result.metrics()}
    rows = [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []
    rows.append(entry)
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    return rows


def write_report(result: Result, path, history=None, top: int = 40, examples: int = 3) -> None:
    rows = record_history(result, Path(history)) if history else []
    m = result.metrics()
    out = ["# ptxld check vs ptxas — differential report", "",
           f"Generated {time.strftime('%Y-%m-%d %H:%M')} from commit {_git_head()} by "
           "`cd tools && python -m ptxas_oracle compare --report ...`.", "",
           "## Numbers", "", "```", summary_text(result), "```", ""]
    if NOTES.exists():
        out += [NOTES.read_text().rstrip(), ""]
    if rows:
        out += ["### Over time", "", "| date | commit | cases | verdict % | raw % | verdict mismatches "
                "| line % | line mismatches |", "|---|---|---|---|---|---|---|---|"]
        out += [f"| {r['date']} | {r['commit']} | {r['cases']} | {r['verdict_agreement']} | "
                f"{r['verdict_agreement_raw']} | {r['verdict_mismatches']} | {r['line_agreement']} | "
                f"{r['line_mismatches']} |" for r in rows]
        out.append("")
    fam = defaultdict(lambda: [0, 0])
    for o in result.outcomes:
        fam[o.case.family][0] += 1
        fam[o.case.family][1] += o.divergence is None and not o.agrees
    out += ["### By family", "", "| family | cases | mismatches |", "|---|---|---|"]
    out += [f"| {f} | {n} | {bad} |" for f, (n, bad) in fam.items()]
    out += ["", "### Documented divergences matched (tests/differential/divergences.py)", ""]
    out += [f"* `{k}`: {n}" for k, n in result.divergence_hits.most_common()] or ["* none"]
    groups: dict[tuple, list[Outcome]] = defaultdict(list)
    for o in result.mismatches():
        groups[pattern_of(o)].append(o)
    ordered = sorted(groups.items(), key=lambda kv: -len(kv[1]))
    out += ["", f"## Mismatches by pattern ({len(result.mismatches())} cases, {len(groups)} patterns;"
            f" top {min(top, len(groups))} shown, most frequent first)", ""]
    for n, ((direction, msg), os_) in enumerate(ordered[:top], 1):
        shapes = Counter(focus_shape(o) for o in os_)
        out += [f"### {n}. {direction} — {len(os_)} cases", "", f"`{msg}`", "",
                "Qualifier combinations: " + "; ".join(f"`{s}` ×{c}" for s, c in shapes.most_common(4)),
                ""]
        picked = sorted(os_, key=lambda o: (len(o.case.text), o.case.id))[:examples]
        for o in picked:
            errs = "; ".join(f"line {ln}: {t}" for ln, t in o.ptxas["errors"][:3]) or "(none)"
            mine = "; ".join(f"line {d.line}: {d.code} {d.message}" for d in o.errors[:2]) or "(none)"
            out += [f"* `{o.case.id}` — `.target {o.case.target}`, `.version "
                    f"{o.case.version[0]}.{o.case.version[1]}`, `-arch={o.case.arch}`"
                    f"{' ' + ' '.join(o.case.flags) if o.case.flags else ''}; focus line "
                    f"{o.case.focus_line}", f"  * ptxas {o.ptxas_verdict}: {errs}",
                    f"  * ptxld: {mine}"]
        first = picked[0]
        out += ["", "```ptx", first.case.text.rstrip(), "```", ""]
    Path(path).write_text("\n".join(out) + "\n")
