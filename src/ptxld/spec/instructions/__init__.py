"""The table of instruction records: which spec module defines each instruction.

Records are loaded on first use: a module that has no `wmma` never pays for the wmma tables.
Adding an instruction family is a module here with a `RECORDS` tuple, and its names listed in
`_HOME`. `common.py` holds the value sets many records share.
"""
from __future__ import annotations

import importlib

from ..isa import InstructionSpec

# instruction name -> module (under ptxld.spec) that defines its record
_HOME: dict[str, str] = {
    "ld": "ld",
    "wmma.load": "wmma", "wmma.store": "wmma", "wmma.mma": "wmma",
    "add": "instructions.arith", "sub": "instructions.arith",
    "mov": "instructions.moves",
    "vote": "instructions.warp",
    # floating point other than add/sub/mul/mad/div/abs/neg/min/max
    **dict.fromkeys(("testp", "copysign", "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2",
                     "tanh"), "instructions.floats"),
    **dict.fromkeys(("set", "setp", "selp", "slct"), "instructions.compare"),
    **dict.fromkeys(("and", "or", "xor", "not", "cnot", "lop3", "shf", "shl", "shr"), "instructions.logic"),
    **dict.fromkeys(("cvt", "cvt.pack", "cvta", "isspacep", "prmt"), "instructions.convert"),
    **dict.fromkeys(("st", "atom", "red", "prefetch", "prefetchu"), "instructions.memory"),
    **dict.fromkeys(("bar", "barrier", "bar.warp.sync", "membar", "fence", "shfl", "match", "redux",
                     "activemask", "nanosleep", "trap", "brkpt", "pmevent"), "instructions.sync"),
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
        module = importlib.import_module(f"ptxld.spec.{home}")
        for record in module.RECORDS:
            _LOADED[record.name] = record
        got = _LOADED[name]
    return got
