"""Which rules run: `select`/`ignore` lists of codes and code prefixes, as ruff reads them.

A selector is a whole code (`PTX0203`), a prefix of codes (`PTX02`, `PTX`) or `ALL`. For each
rule the most specific selector that matches it decides (the longest; an `ignore` wins over a
`select` of the same length). Settings come in layers (a configuration file, then the command
line): a layer that has `select` starts afresh from it, a layer with only `ignore` removes rules
from what the layer below enabled. Syntax errors (PTX00xx) are not rules: they are always
reported.
"""
from __future__ import annotations

import re

from .registry import RULES

_SELECTOR = r"PTX\d{0,4}|ALL"  # compiled (and cached by `re`) when selectors are given


class SelectionError(ValueError):
    """A selector that names no rule."""


def selectors(values, where: str = "") -> list[str]:
    """Normalised selectors from a list (or comma-separated strings) of them; raises
    `SelectionError` naming the first one that selects no rule."""
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    out = []
    for value in values:
        for part in str(value).split(","):
            s = part.strip().upper()
            if not s:
                continue
            if not re.fullmatch(_SELECTOR, s) or not any(_matches(s, code) for code in RULES):
                at = f" in {where}" if where else ""
                raise SelectionError(f"unknown rule selector `{part.strip()}`{at}: expected a rule code "
                                     "such as PTX0203, a prefix such as PTX02, or ALL (`ptxld rules` "
                                     "lists the codes)")
            out.append(s)
    return out


def _matches(selector: str, code: str) -> bool:
    return selector == "ALL" or code.startswith(selector)


def _specificity(selector: str) -> int:
    return 0 if selector == "ALL" else len(selector)


def enabled_codes(layers) -> frozenset | None:
    """The codes that run, from (select, ignore) layers, lowest first (None in a layer: not
    given). None when every rule runs."""
    enabled = set(RULES)
    for select, ignore in layers:
        sel = selectors(select) if select is not None else None
        ign = selectors(ignore)
        if sel is None and not ign:
            continue
        rules = sorted([(s, True) for s in sel or ()] + [(s, False) for s in ign],
                       key=lambda x: (_specificity(x[0]), not x[1]))  # an ignore after a select
        base = set() if sel is not None else enabled
        now = set()
        for code in RULES:
            decision = code in base
            for s, on in rules:  # the last match is the most specific
                if _matches(s, code):
                    decision = on
            if decision:
                now.add(code)
        enabled = now
    return None if enabled == set(RULES) else frozenset(enabled)


def is_enabled(code: str, enabled: frozenset | None) -> bool:
    """Whether a diagnostic with this code is reported (syntax errors always are)."""
    return enabled is None or code in enabled or code not in RULES
