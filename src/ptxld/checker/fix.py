"""`ptxld check --fix`: apply the fixes that diagnostics mark as safe, as `ruff check --fix` does.

A diagnostic's `fix` replaces its span `[start, end)` (an empty string deletes it). Only edits a
rule knows to keep the instruction's meaning carry one: a repeated or conflicting qualifier, a
cache hint that cannot go with the memory order, `.unified` missing or misplaced, a renamed
target, the canonical qualifier order. Guesses ("did you mean `add`?") stay in the help text.
"""
from __future__ import annotations

from ..diagnostics import Diagnostic
from . import check_source

# Fixing one problem can uncover another (or two fixes overlap): check again, this many times.
MAX_PASSES = 10


def apply_fixes(text: str, diags: list[Diagnostic]) -> tuple[str, int]:
    """`text` with every fix applied that does not overlap an earlier one, and how many."""
    edits = sorted({(d.start, d.end, d.fix) for d in diags if d.fix is not None})
    out, pos, applied = [], 0, 0
    for start, end, replacement in edits:
        if start < pos:
            continue  # overlaps the edit before it: the next pass sees it again
        out += [text[pos:start], replacement]
        pos = end
        applied += 1
    out.append(text[pos:])
    return "".join(out), applied


def fix_source(text: str, *, filename: str = "<string>", strict: bool = False, select=None,
               ignore=None) -> tuple[str, int, list[Diagnostic]]:
    """(fixed text, number of fixes applied, the diagnostics of the fixed text); `select` and
    `ignore` as for `check_source`."""
    total = 0
    settings = {"filename": filename, "strict": strict, "select": select, "ignore": ignore}
    diags = check_source(text, **settings)
    for _ in range(MAX_PASSES):
        fixed, applied = apply_fixes(text, diags)
        if not applied or fixed == text:
            break
        text, total = fixed, total + applied
        diags = check_source(text, **settings)
    return text, total, diags
