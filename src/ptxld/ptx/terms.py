"""Operand nodes: registers and names, literals, sinks, expressions, vectors, addresses.

Every node keeps its source span as character offsets into the module text. The classes are
plain slotted classes (see `ptxld.slotted`): equal when their fields are.
"""
from __future__ import annotations

TYPE_CHECKING = False  # (typing is not imported at run time: 3 ms of every start)
if TYPE_CHECKING:
    from typing import Any

from ..slotted import Value


class Name(Value):
    """A register, variable, label or function name; `%tid.x` has component 'x'."""
    __slots__ = FIELDS = ("name", "start", "end", "component")

    def __init__(self, name: str, start: int, end: int, component: str | None = None):
        self.name, self.start, self.end, self.component = name, start, end, component

    @property
    def text(self) -> str:
        return self.name + ("." + self.component if self.component else "")


class Int(Value):
    __slots__ = FIELDS = ("value", "text", "start", "end", "unsigned")

    def __init__(self, value: int, text: str, start: int, end: int, unsigned: bool = False):
        self.value, self.text, self.start, self.end, self.unsigned = value, text, start, end, unsigned


class Float(Value):
    __slots__ = FIELDS = ("value", "text", "start", "end", "bits", "width")

    def __init__(self, value: float, text: str, start: int, end: int, bits: int | None = None,
                 width: int = 64):
        self.value, self.text, self.start, self.end = value, text, start, end
        self.bits = bits      # exact bits of a 0f/0d literal
        self.width = width    # 32 for 0f, 64 for 0d and decimal


class Sink(Value):
    __slots__ = FIELDS = ("start", "end", "text")

    def __init__(self, start: int, end: int, text: str = "_"):
        self.start, self.end, self.text = start, end, text


# the `op` of an array element used as an operand, `buf[3]`: Expr(ELEMENT, [Name, index])
ELEMENT = "element"


class Expr(Value):
    """A constant or address expression: op is a C operator, or 'cast.s64'/'cast.u64'."""
    __slots__ = FIELDS = ("op", "args", "start", "end")

    def __init__(self, op: str, args: list, start: int, end: int):
        self.op, self.args, self.start, self.end = op, args, start, end


class Vector(Value):
    __slots__ = FIELDS = ("items", "start", "end")

    def __init__(self, items: list, start: int, end: int):
        self.items, self.start, self.end = items, start, end


class Address(Value):
    """`[base]`, `[base+imm]`, `[imm]`, `[var+imm]`, optional `.unified` suffix.

    `base` is a Name (register or variable) or None for an immediate address; `offset` is the byte
    offset (already evaluated); `items` holds extra comma-separated parts (texture operands).
    """
    __slots__ = FIELDS = ("base", "offset", "start", "end", "unified", "offset_expr", "items")

    def __init__(self, base: Name | None, offset: int, start: int, end: int, unified: bool = False,
                 offset_expr: Any = None, items: list | None = None):
        self.base, self.offset, self.start, self.end = base, offset, start, end
        self.unified, self.offset_expr = unified, offset_expr
        self.items = [] if items is None else items

    @property
    def mode(self) -> str:
        if self.base is None:
            return "immediate"
        kind = "register" if self.base.name.startswith("%") else "variable"
        return kind + ("+offset" if self.offset_expr is not None else "")


class ParenList(Value):
    __slots__ = FIELDS = ("items", "start", "end")

    def __init__(self, items: list, start: int, end: int):
        self.items, self.start, self.end = items, start, end


class PredPair(Value):
    """`p|q` dual destination of setp."""
    __slots__ = FIELDS = ("first", "second", "start", "end")

    def __init__(self, first: Any, second: Any, start: int, end: int):
        self.first, self.second, self.start, self.end = first, second, start, end


Operand = Name | Int | Float | Sink | Expr | Vector | Address | ParenList | PredPair
