"""Renderers of the one diagnostic model: text (rustc-like), JSON and SARIF 2.1.0."""
from __future__ import annotations

import json
import os

from ..diagnostics import Diagnostic
from ..version import version
from ..ptx.source import Source
from .registry import RULES, all_rules

_COLORS = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "note": "\x1b[1;36m", "help": "\x1b[1;32m",
           "bold": "\x1b[1m", "blue": "\x1b[1;34m", "reset": "\x1b[0m"}


def use_color(stream) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


class _Paint:
    def __init__(self, on: bool):
        self.on = on

    def __call__(self, style: str, text: str) -> str:
        return f"{_COLORS[style]}{text}{_COLORS['reset']}" if self.on and text else text


# ------------------------------------------------------------------ text
def render_text(diags: list[Diagnostic], source_text: str, *, color: bool = False) -> str:
    src = Source(source_text)
    p = _Paint(color)
    return "".join(_one(d, src, p) for d in diags)


def _one(d: Diagnostic, src, p) -> str:
    sev = d.severity
    out = [f"{p(sev, f'{sev}[{d.code}]')}{p('bold', ': ' + d.message)}\n"]
    line_no = d.line
    gutter = len(str(max([line_no] + [src.position(s.start)[0] for s in d.secondary])))
    pad = " " * gutter
    out.append(f"{pad}{p('blue', '-->')} {d.filename}:{d.line}:{d.column}\n")
    out.append(f"{pad} {p('blue', '|')}\n")
    spans = [(d.start, d.end, d.label, True)] + [(s.start, s.end, s.message, False) for s in d.secondary]
    by_line: dict[int, list] = {}
    for s, e, msg, primary in spans:
        ln, col = src.position(s)
        text = src.line_text(ln)
        width = max(1, min(e - s, len(text) - col + 1)) if text else 1
        by_line.setdefault(ln, []).append((col, width, msg, primary))
    prev = None
    for ln in sorted(by_line):
        if prev is not None and ln > prev + 1:
            out.append(f"{p('blue', '...')}\n")
        prev = ln
        text, labels = _window(src.line_text(ln).replace("\t", " "), by_line[ln])
        out.append(f"{p('blue', str(ln).rjust(gutter) + ' |')} {text}\n")
        out.extend(_markers(labels, pad, p, sev))
    if d.section:
        out.append(f"{pad} {p('blue', '=')} {p('bold', 'note')}: {d.section}\n")
    for n in d.notes:
        out.append(f"{pad} {p('blue', '=')} {p('bold', 'note')}: {n}\n")
    help_text = d.help
    if d.fix is not None:
        fixed = _apply_fix(d, src)
        if fixed is not None and len(fixed) <= MAX_LINE:
            help_text = (help_text + ": " if help_text else "apply the fix: ") + f"`{fixed.strip()}`"
    if help_text:
        out.append(f"{p('help', 'help')}: {help_text}\n")
    out.append("\n")
    return "".join(out)


MAX_LINE = 160  # longer source lines are shown as a window around the marked spans


def _window(text: str, labels: list) -> tuple[str, list]:
    """Cut a very long line down to the part around its labels, marking the cuts with `…`."""
    if len(text) <= MAX_LINE:
        return text, labels
    lo = min(c for c, _, _, _ in labels) - 1
    start = max(0, lo - 40)
    stop = min(len(text), start + MAX_LINE - 20)
    head = "…" if start > 0 else ""
    shift = start - len(head)
    shown = head + text[start:stop] + ("…" if stop < len(text) else "")
    moved = [(c - shift, max(1, min(w, stop - (c - 1))), m, prim) for c, w, m, prim in labels
             if start <= c - 1 < stop]
    return shown, moved or [(len(head) + 1, 1, labels[0][2], labels[0][3])]


def _markers(labels, pad, p, sev) -> list[str]:
    labels = sorted(labels, key=lambda x: x[0])
    row = [" "] * (max(c + w for c, w, _, _ in labels))
    for col, width, _, primary in labels:
        for i in range(col - 1, col - 1 + width):
            row[i] = "^" if primary else "-"
    style = lambda prim: sev if prim else "blue"  # noqa: E731
    lines = []
    first = "".join(row).rstrip()
    last_col, _, last_msg, last_primary = labels[-1]
    painted = "".join(p(style(any(lb[3] for lb in labels if lb[0] - 1 <= i < lb[0] - 1 + lb[1])), ch)
                      if ch != " " else ch for i, ch in enumerate(first))
    tail = f" {p(style(last_primary), last_msg)}" if last_msg else ""
    lines.append(f"{pad} {p('blue', '|')} {painted}{tail}\n")
    rest = [lb for lb in labels[:-1] if lb[2]]
    for k in range(len(rest) - 1, -1, -1):
        col, _, msg, primary = rest[k]
        bars = [" "] * col
        for c2, _, _, _ in rest[:k + 1]:
            bars[c2 - 1] = "|"
        lines.append(f"{pad} {p('blue', '|')} {p('blue', ''.join(bars).rstrip())}\n")
        bars2 = [" "] * (col - 1)
        for c2, _, _, _ in rest[:k]:
            bars2[c2 - 1] = "|"
        lines.append(f"{pad} {p('blue', '|')} {p('blue', ''.join(bars2))}{p(style(primary), msg)}\n")
    return lines


def _apply_fix(d: Diagnostic, src) -> str | None:
    """The source line with the fix applied (None when the fix spans lines)."""
    ln, col = src.position(d.start)
    eln, ecol = src.position(d.end)
    if ln != eln:
        return None
    text = src.line_text(ln)
    return text[:col - 1] + d.fix + text[ecol - 1:]


# ------------------------------------------------------------------ JSON
def diagnostic_dict(d: Diagnostic) -> dict:
    rule = RULES.get(d.code)
    return {
        "code": d.code, "name": rule.name if rule else "syntax", "severity": d.severity,
        "message": d.message, "file": d.filename, "line": d.line, "column": d.column,
        "end_line": d.end_line or d.line, "end_column": d.end_column or d.column + max(1, d.end - d.start),
        "start": d.start, "end": d.end, "label": d.label,
        "secondary": [{"start": s.start, "end": s.end, "message": s.message} for s in d.secondary],
        "notes": list(d.notes), "help": d.help, "fix": d.fix, "section": d.section,
    }


def render_json(results: list[tuple[str, list[Diagnostic]]]) -> str:
    files = []
    totals = {"error": 0, "warning": 0, "note": 0}
    for name, diags in results:
        for d in diags:
            totals[d.severity] = totals.get(d.severity, 0) + 1
        files.append({"file": name, "diagnostics": [diagnostic_dict(d) for d in diags]})
    return json.dumps({"tool": "ptxld", "version": version(), "files": files, "summary": totals},
                      indent=2) + "\n"


# ------------------------------------------------------------------ SARIF 2.1.0
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "note": "note"}


def _line_col(text: str | None, offset: int, fallback: tuple[int, int]) -> tuple[int, int]:
    if text is None or not 0 <= offset <= len(text):
        return fallback
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def render_sarif(results: list[tuple[str, list[Diagnostic]]], texts: dict[str, str] | None = None) -> str:
    """SARIF 2.1.0; `texts` (file name -> its text) gives related locations their line and
    column (without it they carry the primary location's line)."""
    rules = all_rules()
    index = {r.code: i for i, r in enumerate(rules)}
    driver_rules = [{
        "id": r.code, "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": r.quote},
        "helpUri": f"https://github.com/ptxld/ptxld/blob/main/docs/rules/{r.code}.md",
        "help": {"text": f"{r.summary}. Source: {r.section}.", "markdown": f"**{r.summary}** — {r.section}"},
        "defaultConfiguration": {"level": _LEVEL[r.severity]},
        "properties": {"isa_only": r.isa_only, "section": r.section},
    } for r in rules]
    out = []
    for name, diags in results:
        for d in diags:
            region = {"startLine": d.line, "startColumn": d.column,
                      "endLine": d.end_line or d.line, "endColumn": d.end_column or d.column + 1,
                      "charOffset": d.start, "charLength": max(1, d.end - d.start)}
            res = {"ruleId": d.code, "level": _LEVEL.get(d.severity, "note"),
                   "message": {"text": d.message + (f" ({d.label})" if d.label else "")},
                   "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(name)},
                                                       "region": region}}]}
            if d.code in index:
                res["ruleIndex"] = index[d.code]
            if d.secondary:
                text = (texts or {}).get(name)
                related = []
                for i, s in enumerate(d.secondary):
                    line, col = _line_col(text, s.start, (d.line, d.column))
                    related.append({
                        "id": i + 1, "message": {"text": s.message},
                        "physicalLocation": {"artifactLocation": {"uri": _uri(name)},
                                             "region": {"startLine": line, "startColumn": col,
                                                        "charOffset": s.start,
                                                        "charLength": max(1, s.end - s.start)}}})
                res["relatedLocations"] = related
            if d.fix is not None:
                res["fixes"] = [{"description": {"text": d.help or "apply the suggested fix"},
                                 "artifactChanges": [{"artifactLocation": {"uri": _uri(name)},
                                                      "replacements": [{"deletedRegion": {
                                                          "charOffset": d.start, "charLength": d.end - d.start},
                                                          "insertedContent": {"text": d.fix}}]}]}]
            out.append(res)
    doc = {"version": "2.1.0", "$schema": SARIF_SCHEMA,
           "runs": [{"tool": {"driver": {"name": "ptxld", "version": version(),
                                         "informationUri": "https://github.com/ptxld/ptxld",
                                         "rules": driver_rules}},
                     "columnKind": "unicodeCodePoints",
                     "results": out}]}
    return json.dumps(doc, indent=2) + "\n"


def _uri(name: str) -> str:
    if name in ("-", "<stdin>"):
        return "stdin"
    return name.replace(os.sep, "/")
