"""Constant expressions (PTX ISA §4.5.4-4.5.6): a Pratt parser over statement tokens and a folder.

All integer arithmetic is 64-bit; a result is unsigned if either operand is unsigned (U suffix, cast).
"""
from __future__ import annotations

import struct

from .terms import Expr, Float, Int, Name
from .lexer import Token

_MASK = (1 << 64) - 1

# binary operator -> precedence (C order)
BINARY = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
    "<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}


class ExprError(Exception):
    def __init__(self, message: str, token: Token | None):
        super().__init__(message)
        self.token = token


def parse_number(tok: Token):
    t = tok.text
    low = t.lower()
    if low.startswith("0f") and len(t) == 10:
        bits = int(t[2:], 16)
        return Float(struct.unpack("<f", struct.pack("<I", bits))[0], t, tok.start, tok.end, bits, 32)
    if low.startswith("0d") and len(t) == 18:
        bits = int(t[2:], 16)
        return Float(struct.unpack("<d", struct.pack("<Q", bits))[0], t, tok.start, tok.end, bits, 64)
    unsigned = t.endswith("U")
    body = t[:-1] if unsigned else t
    lb = body.lower()
    if lb.startswith("0x"):
        v = int(body[2:], 16)
    elif lb.startswith("0b"):
        v = int(body[2:], 2)
    elif "." in body or "e" in lb:
        return Float(float(body), t, tok.start, tok.end)
    elif len(body) > 1 and body.startswith("0"):
        if any(c in "89" for c in body):
            raise ExprError(f"invalid octal literal `{t}`", tok)
        v = int(body, 8)
    else:
        v = int(body)
    if v > _MASK:
        raise ExprError(f"integer literal `{t}` does not fit in 64 bits", tok)
    return Int(v, t, tok.start, tok.end, unsigned or v > 0x7FFFFFFFFFFFFFFF)


class ExprParser:
    """Parses one expression from a token list starting at index `i`."""

    MAX_OPERATORS = 10_000  # longer chains would exhaust the recursion of every tree walk
    MAX_DEPTH = 100

    def __init__(self, toks: list[Token], i: int, end_offset: int):
        self.toks = toks
        self.i = i
        self.end_offset = end_offset
        self.operators = 0
        self.depth = 0

    def peek(self) -> Token | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def next(self) -> Token:
        t = self.peek()
        if t is None:
            raise ExprError("expected an expression", None)
        self.i += 1
        return t

    def parse(self, min_prec: int = 0):
        left = self.unary()
        while True:
            t = self.peek()
            if t is None or t.kind != "op":
                break
            if t.text == "?" and min_prec == 0:
                self.i += 1
                a = self.parse(0)
                c = self.next()
                if c.text != ":":
                    raise ExprError("expected `:` in conditional expression", c)
                b = self.parse(0)
                left = Expr("?:", [left, a, b], _start(left), _end(b))
                continue
            prec = BINARY.get(t.text)
            if prec is None or prec <= min_prec - 1 or prec < min_prec:
                break
            self.i += 1
            self.operators += 1
            if self.operators > self.MAX_OPERATORS:
                raise ExprError(f"expression longer than {self.MAX_OPERATORS} operators", t)
            right = self.parse(prec + 1)
            left = Expr(t.text, [left, right], _start(left), _end(right))
        return left

    def unary(self):
        t = self.next()
        self.operators += 1
        if self.operators > self.MAX_OPERATORS:
            raise ExprError(f"expression longer than {self.MAX_OPERATORS} operators", t)
        if t.kind == "op" and t.text in "-+!~" and len(t.text) == 1:
            self.depth += 1
            if self.depth > self.MAX_DEPTH:
                raise ExprError(f"unary operators nested deeper than {self.MAX_DEPTH}", t)
            arg = self.unary()
            self.depth -= 1
            return Expr("u" + t.text, [arg], t.start, _end(arg))
        if t.kind == "op" and t.text == "(":
            self.depth += 1
            if self.depth > self.MAX_DEPTH:
                raise ExprError(f"parentheses nested deeper than {self.MAX_DEPTH}", t)
            nt = self.peek()
            if nt is not None and nt.kind == "dir" and nt.text in (".s64", ".u64"):
                self.i += 1
                close = self.next()
                if close.text != ")":
                    raise ExprError("expected `)` after cast type", close)
                arg = self.unary()
                return Expr("cast" + nt.text, [arg], t.start, _end(arg))
            inner = self.parse(0)
            close = self.next()
            if close.text != ")":
                raise ExprError("expected `)`", close)
            self.depth -= 1
            return Expr("()", [inner], t.start, close.end)
        if t.kind == "num":
            return parse_number(t)
        if t.kind == "word":
            return name_of(t)
        raise ExprError(f"unexpected `{t.text}` in expression", t)


def name_of(t: Token) -> Name:
    text = t.text
    # `%tid.x`: a special register with a vector component
    if "." in text:
        base, comp = text.split(".", 1)
        return Name(base, t.start, t.end, comp)
    return Name(text, t.start, t.end)


def _start(n) -> int:
    return n.start


def _end(n) -> int:
    return n.end


def fold(node, lookup=None):
    """Value of a constant expression: int (as Python int, u64 range) or float; None if not constant.

    `lookup(name)` may give a value for a name (an address); without it names are not constant.
    """
    if isinstance(node, Int):
        return node.value
    if isinstance(node, Float):
        return node.value
    if isinstance(node, Name):
        return lookup(node) if lookup else None
    if not isinstance(node, Expr):
        return None
    vals = [fold(a, lookup) for a in node.args]
    if any(v is None for v in vals):
        return None
    op = node.op
    if op == "()":
        return vals[0]
    if op.startswith("cast"):
        v = int(vals[0]) & _MASK
        return _signed(v) if op == "cast.s64" else v
    if op[0] == "u" and len(op) == 2:
        v = vals[0]
        if op == "u-":
            return -v
        if op == "u+":
            return v
        if op == "u!":
            return int(not v)
        return (~int(v)) & _MASK
    if op == "?:":
        return vals[1] if vals[0] else vals[2]
    a, b = vals
    if isinstance(a, float) or isinstance(b, float):
        try:
            return {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else float("nan"),
                    "<": int(a < b), ">": int(a > b), "<=": int(a <= b), ">=": int(a >= b),
                    "==": int(a == b), "!=": int(a != b)}[op]
        except KeyError:
            return None
    if op in ("/", "%") and b == 0:
        return None
    r = {
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
        "/": lambda: int(a / b), "%": lambda: (a & _MASK) % (b & _MASK),
        "<<": lambda: a << (b & 63), ">>": lambda: a >> (b & 63),
        "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
        "<": lambda: int(a < b), ">": lambda: int(a > b), "<=": lambda: int(a <= b),
        ">=": lambda: int(a >= b), "==": lambda: int(a == b), "!=": lambda: int(a != b),
        "&&": lambda: int(bool(a and b)), "||": lambda: int(bool(a or b)),
    }[op]()
    return _signed(r & _MASK)


def _signed(v: int) -> int:
    return v - (1 << 64) if v & (1 << 63) else v
