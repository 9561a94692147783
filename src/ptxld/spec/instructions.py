"""The table of instruction records: which spec module defines each instruction.

Records are loaded on first use: a module that has no `wmma` never pays for the wmma tables.
Adding an instruction family is a new module with a `RECORDS` tuple and its names listed here.
"""
from __future__ import annotations

import importlib

from .isa import InstructionSpec

# instruction name -> spec module (under ptxld.spec) that defines its record
_HOME: dict[str, str] = {
    "ld": "ld",
    "wmma.load": "wmma", "wmma.store": "wmma", "wmma.mma": "wmma",
}

_LOADED: dict[str, InstructionSpec] = {}


def names() -> frozenset[str]:
    """Every instruction name that has a record."""
    return frozenset(_HOME)


def spec_of(name: str) -> InstructionSpec | None:
    """The record of an instruction name (`"wmma.load"`), or None if it has none."""
    got = _LOADED.get(name)
    if got is None:
        home = _HOME.get(name)
        if home is None:
            return None
        module = importlib.import_module(f"{__package__}.{home}")
        for record in module.RECORDS:
            _LOADED[record.name] = record
        got = _LOADED[name]
    return got
