"""Tokens of one PTX statement. Offsets are absolute positions in the module text."""
from __future__ import annotations

import re
from collections import namedtuple

from .. import patterns

# Order matters: float bit patterns before decimal integers, words before punctuation.
_TOKEN = patterns.compile(r"""
 (?P<ws>\s+)
|(?P<num>0[fF][0-9a-fA-F]{8}(?![\w$.])|0[dD][0-9a-fA-F]{16}(?![\w$.])
   |0[xX][0-9a-fA-F]+U?|0[bB][01]+U?
   |(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+|\d+U?)
|(?P<word>[A-Za-z_$%][\w$]*(?:(?:\.|::)[\w$]+)*)
|(?P<dir>\.[A-Za-z_][\w$]*(?:::[\w$]+)*)
|(?P<str>"(?:[^"\\\n]|\\.)*")
|(?P<op><<|>>|<=|>=|==|!=|&&|\|\||[-+*/%~!&|^<>=?:,;(){}\[\]@])
|(?P<bad>.)
""", re.X | re.S)


# kind: num | word | dir | str | op | bad; text; start and end offsets (a plain namedtuple:
# typing.NamedTuple would import typing, 3 ms of every start)
Token = namedtuple("Token", "kind text start end")


def tokenize(text: str, base: int = 0) -> list[Token]:
    """Tokens of `text`, whose first character sits at offset `base` of the module."""
    out = []
    append = out.append
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind != "ws":
            append(Token(kind, m.group(), base + m.start(), base + m.end()))
    return out
