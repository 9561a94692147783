"""Suppression comments in PTX, as ruff's `# noqa`:

    ld.relaxed.gpu.global.ca.u32 %r1, [%rd1];  // ptxld: ignore[PTX0203]
    // ptxld: ignore-file[PTX0510, PTX0511]

`ignore[...]` silences those codes on its own line (the line a diagnostic points at);
`ignore-file[...]` anywhere silences them in the whole file. A suppression that silences
nothing is reported (PTX0901), as is one that cannot be read (PTX0902). Codes are whole rule
codes; syntax errors (PTX00xx) cannot be silenced.
"""
from __future__ import annotations

import re

from ..diagnostics import Diagnostic
from ..ptx.source import Source
from .registry import RULES, Example, Rule, reports
from .selection import is_enabled

# `ptxld:` in a `//` comment, and what follows it up to the end of the line. The patterns are
# compiled (and cached by `re`) on the first module that has such a comment: start-up time.
_MARK = r"//[^\n]*?\bptxld\s*:([^\n]*)"
_DIRECTIVE = r"\s*(ignore-file|ignore)\s*\[([^\]]*)\]\s*"
_CODE = r"PTX\d{4}"
SECTION = "ptxld suppression comments (docs/configuration.md)"


class Suppression:
    __slots__ = ("line", "whole_file", "codes", "start", "end", "comment_start", "used")

    def __init__(self, line, whole_file, codes, start, end, comment_start):
        self.line = line                  # 1-based line of the comment
        self.whole_file = whole_file
        self.codes = codes                # [(code, start, end)] in the text
        self.start, self.end = start, end  # the `[...]` list
        self.comment_start = comment_start
        self.used: set = set()


@reports(
    Rule("PTX0901", "unused-suppression", "warning",
         "a `// ptxld: ignore[...]` comment silences nothing",
         SECTION,
         "A suppression names codes that are reported on its line (`ignore`) or in the file "
         "(`ignore-file`); one that silences nothing is stale and would hide a future problem.",
         Example(body="ld.global.u32 %r1, [%rd0];  // ptxld: ignore[PTX0203]"),
         Example(body="ld.global.u32 %r1, [%rd0];"),
         ptxas="accepted (a comment)",
         explanation="Whether a suppression is used does not depend on which rules are selected: "
                     "the rules it names are checked for it. The fix removes the unused codes, or "
                     "the whole comment when none is used."),
    Rule("PTX0902", "malformed-suppression", "warning",
         "a `// ptxld:` comment that is not a suppression ptxld can read",
         SECTION,
         "A suppression is `// ptxld: ignore[CODE, ...]` or `// ptxld: ignore-file[CODE, ...]`, "
         "CODE a rule code such as PTX0203 (`ptxld rules` lists them).",
         Example(body="ld.global.nc.u32 %r1, [gbuf];  // ptxld: ignore(PTX0309)"),
         Example(body="ld.global.nc.u32 %r1, [gbuf];  // read-only for the kernel's lifetime"),
         ptxas="accepted (a comment)",
         explanation="Syntax errors (PTX00xx) are not rules and cannot be silenced."))
def apply_suppressions(text: str, diags: list[Diagnostic], enabled: frozenset | None,
                       filename: str = "<string>") -> list[Diagnostic]:
    """`diags` (checked with `codes_to_run`) without the silenced ones and those not `enabled`,
    with PTX0901/PTX0902 for the module's comments."""
    if "ptxld" not in text:
        return diags
    source = Source(text, filename)
    found, problems = _read(source)
    if not found and not problems:
        return diags
    by_line: dict = {}
    whole_file: dict = {}
    for s in found:
        for code, _, _ in s.codes:
            (whole_file if s.whole_file else by_line.setdefault(s.line, {}))[code] = s
    kept = []
    for d in diags:
        s = whole_file.get(d.code) or by_line.get(d.line, {}).get(d.code)
        if s is None or d.code not in RULES:
            if is_enabled(d.code, enabled):
                kept.append(d)
        else:
            s.used.add(d.code)
    extra = problems + [d for s in found for d in _unused(source, s)]
    for d in extra:
        s = whole_file.get(d.code) or by_line.get(d.line, {}).get(d.code)
        if s is None:
            if is_enabled(d.code, enabled):
                kept.append(d)
        else:
            s.used.add(d.code)
    kept.sort(key=Diagnostic.sort_key)
    return kept


def codes_to_run(text: str, enabled: frozenset | None) -> frozenset | None:
    """The codes to check: the enabled ones, and when unused suppressions are reported the
    codes the suppressions name (whether one is used must not depend on the selection)."""
    if enabled is None or "PTX0901" not in enabled or "ptxld" not in text:
        return enabled
    named = {m.group() for body in re.findall(_MARK, text) for m in re.finditer(_CODE, body.upper())}
    return enabled | (named & RULES.keys())


def _read(source: Source) -> tuple[list[Suppression], list[Diagnostic]]:
    found, problems = [], []
    for m in re.finditer(_MARK, source.text):
        body, at = m.group(1), m.start(1)
        line, _ = source.position(m.start())
        d = re.fullmatch(_DIRECTIVE, body)
        if d is None:
            problems.append(_diag(source, "PTX0902", at, m.end(),
                                  "a `ptxld:` comment must be `ignore[CODE, ...]` or `ignore-file[CODE, ...]`",
                                  label="not a suppression"))
            continue
        codes, bad = [], False
        list_start = at + d.start(2)
        for part in re.finditer(r"[^,\s]+", d.group(2)):
            s, e = list_start + part.start(), list_start + part.end()
            code = part.group().upper()
            if not re.fullmatch(_CODE, code) or code not in RULES:
                syntax = code.startswith("PTX00")
                problems.append(_diag(source, "PTX0902", s, e,
                                      f"`{part.group()}` is a syntax error's code: it cannot be silenced"
                                      if syntax else f"`{part.group()}` is not a rule code",
                                      label="not a rule" if syntax else "no such rule",
                                      help="fix the syntax error" if syntax else
                                      "name whole rule codes such as PTX0203 (`ptxld rules` lists them)"))
                bad = True
                continue
            codes.append((code, s, e))
        if not codes and not bad:
            problems.append(_diag(source, "PTX0902", at + d.start(2) - 1, at + d.end(2) + 1,
                                  "the suppression names no code", label="empty",
                                  help="name the codes to silence, e.g. `ignore[PTX0203]`"))
        if codes:
            found.append(Suppression(line, d.group(1) == "ignore-file", codes, at + d.start(2) - 1,
                                     at + d.end(2) + 1, m.start()))
    return found, problems


def _unused(source: Source, s: Suppression) -> list[Diagnostic]:
    """One PTX0901 for a suppression with unused codes; its fix drops them (the whole comment
    when none is used)."""
    unused = [code for code, _, _ in s.codes if code not in s.used]
    if not unused:
        return []
    kept = [code for code, _, _ in s.codes if code not in unused]
    if kept:
        start, end, fix = s.start, s.end, "[" + ", ".join(kept) + "]"
    else:
        start = s.comment_start
        end = source.text.find("\n", start)
        end = len(source.text) if end < 0 else end
        if source.text[end - 1] == "\r":
            end -= 1
        fix = ""
    where = "in this file" if s.whole_file else "on this line"
    names = ", ".join(f"`{c}`" for c in unused)
    return [_diag(source, "PTX0901", start, end,
                  f"unused suppression: {names} {'is' if len(unused) == 1 else 'are'} not reported {where}",
                  label="silences nothing", help="remove " + ("it" if not kept else "the unused codes"),
                  fix=fix)]


def _diag(source: Source, code: str, start: int, end: int, message: str, *, label: str = "",
          help: str = "", fix: str | None = None) -> Diagnostic:
    rule = RULES[code]
    ln, col = source.position(start)
    eln, ecol = source.position(max(end, start + 1))
    return Diagnostic(code, rule.severity, message, ln, col, start, max(end, start + 1), label=label,
                      help=help, fix=fix, section=rule.section, filename=source.filename,
                      end_line=eln, end_column=ecol)
