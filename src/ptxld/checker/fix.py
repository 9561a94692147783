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
    `ignore` as for `check_source`.

    A fix is kept only if the fixed text checks again without any diagnostic the text did not
    have before and with the fixed problem gone; a fix that fails this stays help text."""
    total = 0
    settings = {"filename": filename, "strict": strict, "select": select, "ignore": ignore}
    diags = check_source(text, **settings)
    rejected: set = set()   # (code, message) of fixes that did not verify
    for _ in range(MAX_PASSES):
        todo = [d for d in diags if d.fix is not None and _key(d) not in rejected]
        fixed, applied = apply_fixes(text, todo)
        if not applied or fixed == text:
            break
        after = check_source(fixed, **settings)
        if not _verified(diags, after):
            # one at a time: keep each fix that verifies on its own
            fixed, applied, after = text, 0, diags
            for d in todo:
                moved = _moved(d, fixed, text)
                if moved is None:
                    continue  # the next pass sees it again
                one, n = apply_fixes(fixed, [moved])
                if not n or one == fixed:
                    continue
                trial = check_source(one, **settings)
                if _verified(after, trial):
                    fixed, after, applied = one, trial, applied + 1
                else:
                    rejected.add(_key(d))
            if not applied:
                break
        text, diags, total = fixed, after, total + applied
    return text, total, diags


def _key(d: Diagnostic) -> tuple:
    return d.code, d.message


def _verified(before: list[Diagnostic], after: list[Diagnostic]) -> bool:
    """No diagnostic in `after` that `before` did not have, and fewer of them."""
    left: dict = {}
    for d in before:
        left[_key(d)] = left.get(_key(d), 0) + 1
    for d in after:
        k = _key(d)
        if left.get(k, 0) <= 0:
            return False
        left[k] -= 1
    return len(after) < len(before)


def _moved(d: Diagnostic, now: str, then: str) -> Diagnostic | None:
    """`d` (a span of `then`) on `now`, which fixes before `d` changed: its span shifts by the
    change of length, provided the text from `d` on is untouched (else None)."""
    shift = len(now) - len(then)
    if d.start + shift < 0 or now[d.start + shift:] != then[d.start:]:
        return None
    return d.replace(start=d.start + shift, end=d.end + shift)
