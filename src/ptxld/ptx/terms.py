"""Operand nodes: registers and names, literals, sinks, expressions, vectors, addresses.

Every node keeps its source span as character offsets into the module text.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union


@dataclass(slots=True)
class Name:
    """A register, variable, label or function name; `%tid.x` has component 'x'."""
    name: str
    start: int
    end: int
    component: str | None = None

    @property
    def text(self) -> str:
        return self.name + ("." + self.component if self.component else "")


@dataclass(slots=True)
class Int:
    value: int
    text: str
    start: int
    end: int
    unsigned: bool = False


@dataclass(slots=True)
class Float:
    value: float
    text: str
    start: int
    end: int
    bits: int | None = None      # exact bits of a 0f/0d literal
    width: int = 64              # 32 for 0f, 64 for 0d and decimal


@dataclass(slots=True)
class Sink:
    start: int
    end: int
    text: str = "_"


# the `op` of an array element used as an operand, `buf[3]`: Expr(ELEMENT, [Name, index])
ELEMENT = "element"


@dataclass(slots=True)
class Expr:
    """A constant or address expression: op is a C operator, or 'cast.s64'/'cast.u64'."""
    op: str
    args: list
    start: int
    end: int


@dataclass(slots=True)
class Vector:
    items: list
    start: int
    end: int


@dataclass(slots=True)
class Address:
    """`[base]`, `[base+imm]`, `[imm]`, `[var+imm]`, optional `.unified` suffix.

    `base` is a Name (register or variable) or None for an immediate address; `offset` is the byte
    offset (already evaluated); `items` holds extra comma-separated parts (texture operands).
    """
    base: Name | None
    offset: int
    start: int
    end: int
    unified: bool = False
    offset_expr: Any = None
    items: list = field(default_factory=list)

    @property
    def mode(self) -> str:
        if self.base is None:
            return "immediate"
        kind = "register" if self.base.name.startswith("%") else "variable"
        return kind + ("+offset" if self.offset_expr is not None else "")


@dataclass(slots=True)
class ParenList:
    items: list
    start: int
    end: int


@dataclass(slots=True)
class PredPair:
    """`p|q` dual destination of setp."""
    first: Any
    second: Any
    start: int
    end: int


Operand = Union[Name, Int, Float, Sink, Expr, Vector, Address, ParenList, PredPair]
