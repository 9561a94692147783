"""The checker: every rule of the load instructions, per PTX version and target."""
from __future__ import annotations

from ..diagnostics import Diagnostic
from ..ptx.parser import parse


def check_source(source: str, *, filename: str = "<string>", strict: bool = False) -> list[Diagnostic]:
    module = parse(source, filename=filename)
    return sorted(module.diagnostics, key=Diagnostic.sort_key)
