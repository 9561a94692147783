"""Operand lists of instructions: registers, immediates, vectors with sink, addresses, call lists."""
from __future__ import annotations

import re

from .. import patterns
from ..diagnostics import Diagnostic
from .exprs import ExprError, ExprParser, fold, parse_number
from .lexer import Token, tokenize
from .syntax import make_syntax_error
from .terms import ELEMENT, Address, Expr, Float, Int, Name, ParenList, PredPair, Sink, Vector


class OperandError(Exception):
    def __init__(self, message: str, start: int, end: int, help: str = "", fix: str | None = None):
        super().__init__(message)
        self.start, self.end, self.help, self.fix = start, end, help, fix


# Fast path for the operand shapes that make up nearly all real code: registers, names,
# `%tid.x`, plain and negative literals, `[reg]` / `[reg+imm]` / `[reg+-imm]` addresses, brace
# vectors with sinks and texture operands `[tex, {coords}]`, comma separated. A sink `_` is no
# address base (`[_]` is a syntax error to ptxas): the general parser takes it.
_NAME = r"[%A-Za-z_$][\w$]*"
_BASE = rf"(?!_(?![\w$])){_NAME}"  # an address base: a name, but not the sink
_OFFSET = r"0[xX][0-9a-fA-F]+|[1-9]\d*|0"
_NAMES = rf"\s*{_NAME}\s*(?:,\s*{_NAME}\s*)*"
_NUMBER = r"0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}|0[xX][0-9a-fA-F]+U?|[1-9]\d*U?|0"
_ITEM = rf"""(?:
  (?P<name>{_NAME})(?:\.(?P<comp>[a-z]\w*))?
 |(?P<num>{_NUMBER})
 |\[\s*(?P<base>{_BASE})\s*(?:\+\s*(?P<neg>-)?\s*(?P<off>{_OFFSET}))?\s*\]
 |\{{(?P<vec>{_NAMES})\}}
 |-(?P<negnum>\s*(?:{_OFFSET}))
 |\[\s*(?P<tbase>{_BASE})\s*,\s*\{{(?P<tvec>{_NAMES})\}}\s*\]
)"""
_FAST_ITEM = patterns.compile(rf"\s*{_ITEM}\s*(?P<sep>,|$)", re.X)
_NEGATIVE = rf"-\s*(?:{_OFFSET})"
# an address of this grammar, `[base]`, `[base+imm]`, `[base+-imm]` (group: the base)
_ADDRESS = rf"\[\s*({_BASE})\s*(?:\+\s*-?\s*(?:{_OFFSET}))?\s*\]"
# one operand that is a number of this grammar, negative ones included (the checker's plans)
FAST_NUMBER = patterns.compile(rf"{_NUMBER}|{_NEGATIVE}")
# one operand that is an address of this grammar (group 1: the base)
FAST_ADDRESS = patterns.compile(_ADDRESS)
_VEC_ITEM = patterns.compile(_NAME)
# The same grammar without its groups, for the whole operand list at once: a syntax check that
# builds no operands (the names pass of the checker uses it). An item, once matched, is never
# matched again shorter (an atomic group; the spaces and repetitions possessive): nothing after
# an item could match where the item's longest match does not, and the engine keeps no
# backtracking state (a third less time on a module's operand lists).
_PLAIN_ITEM = "(?>" + re.sub(r"\(\?P<\w+>", "(?:", _ITEM)[3:]
# (each item matched once: `(?:item,)*item` would match the last item twice, the first time
# failing at its missing comma; four times slower on a module's operand lists)
_LIST = rf"\s*+{_PLAIN_ITEM}\s*+(?:,\s*+{_PLAIN_ITEM}\s*+)*+|\s*+"
# Many operand lists, each followed by `;` (which no operand text contains); one list is
# `in_fast_grammar` (one compiled pattern for both: compiling it is a share of start-up).
FAST_LISTS = patterns.compile(rf"(?:(?:{_LIST});)*+", re.X)


def in_fast_grammar(operand_text: str) -> bool:
    """Whether one operand list is in the fast grammar."""
    return ";" not in operand_text and FAST_LISTS.fullmatch(operand_text + ";") is not None


NAME_USE = patterns.compile(rf"(?<![\w$.%]){_NAME}")
# In text that FAST_LISTS matched, a name is a run of name characters (with its `.x` component
# attached) and a number starts with a digit, so a split finds the names faster than NAME_USE.
_PUNCTUATION = str.maketrans(dict.fromkeys(",;[]{}+-", " "))


def fast_list_names(text: str) -> set[str]:
    """The names (`_` included) in operand lists that FAST_LISTS matched."""
    return {t.partition(".")[0] for t in set(text.translate(_PUNCTUATION).split()) if not t[0].isdigit()}


def operand_names(ins) -> list[Name] | None:
    """Every name an instruction's operands use (`_` included), where it stands, found without
    parsing the operands; None when they are outside the fast-path grammar (parse them instead)."""
    text = ins.operand_text
    if not in_fast_grammar(text):
        return None
    at = ins.operand_start
    return [Name(m.group(), at + m.start(), at + m.end()) for m in NAME_USE.finditer(text)]


_ADDRESS_BASE = patterns.compile(rf"\[\s*({_NAME})")
# the commonest list with an address, a store's `[%rd1+8], %r1` (a list of the fast grammar)
_ADDRESS_AND_ITEM = patterns.compile(rf"\s*{_ADDRESS}\s*,\s*(?:{_NAME}(?:\.[a-z]\w*)?|{_NUMBER}|{_NEGATIVE}|\{{{_NAMES}\}})\s*")


def first_address_base(ins) -> Name | None:
    """The base of the first `[address]` operand that has one (`st [%rd1], %r1` -> `%rd1`); read
    from the text when it is in the fast grammar, where every `[` starts with its base."""
    text = ins.operand_text
    if ins._operands is None and (m := _ADDRESS_AND_ITEM.fullmatch(text)) is not None:
        at = ins.operand_start
        return Name(m.group(1), at + m.start(1), at + m.end(1))
    if ins._operands is None and in_fast_grammar(text):
        m = _ADDRESS_BASE.search(text)
        if m is None:
            return None
        at = ins.operand_start
        return Name(m.group(1), at + m.start(1), at + m.end(1))
    for op in ins.operands:
        if op.__class__ is Address and op.base is not None:
            return op.base
    return None


# The commonest list of all, a load's `%r, [%rd]` / `%r, [%rd+16]`, in one match.
_REG_AND_ADDRESS = patterns.compile(rf"\s*({_NAME})\s*,\s*(\[)\s*({_BASE})\s*(?:\+\s*({_OFFSET})\s*)?(\])\s*")


def _fast_operands(text: str, base: int) -> list | None:
    m = _REG_AND_ADDRESS.fullmatch(text)
    if m is not None and m.group(1) != "_":
        dest, _, name, off, _ = m.groups()
        b = Name(name, base + m.start(3), base + m.end(3))
        if off is None:
            address = Address(b, 0, base + m.start(2), base + m.end(5))
        else:
            node = Int(int(off, 0), off, base + m.start(4), base + m.end(4))
            address = Address(b, node.value, base + m.start(2), base + m.end(5), offset_expr=node)
        return [Name(dest, base + m.start(1), base + m.end(1)), address]
    out = []
    pos, n = 0, len(text)
    if not text.strip():
        return out
    match = _FAST_ITEM.match
    while pos < n:
        m = match(text, pos)
        if m is None:
            return None
        # one call for every group (the groups of _ITEM in order, then the separator)
        name, comp, num, abase, neg, off, vec, negnum, tbase, tvec, sep = m.groups()
        if name is not None:
            if name == "_":
                out.append(Sink(base + m.start(1), base + m.end(1)))
            else:
                out.append(Name(name, base + m.start(1), base + m.end(2 if comp else 1), comp))
        elif abase is not None:
            b = Name(abase, base + m.start(4), base + m.end(4))
            start = base + text.index("[", m.start())
            end = base + text.index("]", m.start()) + 1
            if off is None:
                out.append(Address(b, 0, start, end))
            else:
                value = int(off, 0)
                # a folded constant has empty text, as in the general parser
                node = (Int(-value, "", base + m.start(5), base + m.end(6)) if neg else
                        Int(value, off, base + m.start(6), base + m.end(6)))
                out.append(Address(b, node.value, start, end, offset_expr=node))
        elif vec is not None:
            out.append(_vector(vec, base + m.start(7)))
        elif negnum is not None:
            lit = negnum.lstrip()
            s = m.end(8) - len(lit)
            value = parse_number(Token("num", lit, base + s, base + m.end(8))).value
            out.append(Int(-value, "", base + m.start(8) - 1, base + m.end(8)))
        elif tbase is not None:
            # texture/surface operand `[tex, {coordinates}]`
            b = Name(tbase, base + m.start(9), base + m.end(9))
            start = base + text.index("[", m.start())
            end = base + text.index("]", m.end(10)) + 1
            out.append(Address(b, 0, start, end, items=[_vector(tvec, base + m.start(10))]))
        else:
            out.append(parse_number(Token("num", num, base + m.start(3), base + m.end(3))))
        pos = m.end()
        if sep == "":
            break
        if pos >= n:
            return None  # trailing comma
    return out


def _vector(inner: str, at: int) -> Vector:
    """`{a, _, c}` whose inside `inner` starts at offset `at`."""
    items = [Sink(at + v.start(), at + v.end()) if v.group() == "_" else Name(v.group(), at + v.start(), at + v.end())
             for v in _VEC_ITEM.finditer(inner)]
    return Vector(items, at - 1, at + len(inner) + 1)


def parse_operands(ins, *, fast: bool = True) -> tuple[list, Diagnostic | None]:
    """Parse `ins.operand_text`: (operands, None), or ([], the syntax error)."""
    if fast:
        quick = _fast_operands(ins.operand_text, ins.operand_start)
        if quick is not None:
            return quick, None
    toks = tokenize(ins.operand_text, ins.operand_start)
    source = ins.module.source
    try:
        return OperandParser(toks, ins.end).operand_list(), None
    except OperandError as e:
        return [], make_syntax_error(source, e.start, e.end, str(e), help=e.help, fix=e.fix)
    except ExprError as e:
        t = e.token
        start = t.start if t else ins.end - 1
        return [], make_syntax_error(source, start, t.end if t else ins.end, str(e))


class OperandParser:
    def __init__(self, toks: list[Token], end: int):
        self.toks = toks
        self.i = 0
        self.end = end

    def peek(self) -> Token | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def expect(self, text: str) -> Token:
        t = self.peek()
        if t is None:
            raise OperandError(f"expected `{text}`", self.end - 1, self.end)
        if t.text != text:
            raise OperandError(f"expected `{text}`, found `{t.text}`", t.start, t.end)
        self.i += 1
        return t

    def operand_list(self) -> list:
        out = []
        if self.peek() is None:
            return out
        while True:
            out.append(self.operand())
            t = self.peek()
            if t is None:
                return out
            if t.text != ",":
                raise OperandError(f"expected `,` or `;`, found `{t.text}`", t.start, t.end)
            self.i += 1

    def operand(self):
        t = self.peek()
        if t is None:
            raise OperandError("expected an operand", self.end - 1, self.end)
        if t.kind == "bad":
            raise OperandError(f"unexpected character `{t.text}`", t.start, t.end)
        if t.text == "[":
            return self.address()
        if t.text == "{":
            vec = self.vector()
            t = self.peek()
            if t is not None and t.text == "|":
                # a texture result and its predicate, `{r, g, b, a}|p` (tex, tld4)
                self.i += 1
                pred = self.expr()
                return PredPair(vec, pred, vec.start, pred.end)
            return vec
        if t.text == "(" and self._is_paren_list():
            return self.paren_list()
        if t.kind == "word" and t.text == "_":
            self.i += 1
            return Sink(t.start, t.end)
        node = self.expr()
        if isinstance(node, Expr) and node.op == "|" and all(isinstance(a, Name) for a in node.args):
            return PredPair(node.args[0], node.args[1], node.start, node.end)
        t = self.peek()
        if t is not None and t.text == "[" and isinstance(node, Name):
            return self.element(node)
        return node

    def element(self, array: Name) -> Expr:
        """`buf[3]`: the address of element 3 of array `buf` (PTX ISA "Arrays as Operands";
        the index counts elements of the array's scalar type, as ptxas scales it)."""
        self.expect("[")
        index = self.expr()
        close = self.expect("]")
        return Expr(ELEMENT, [array, index], array.start, close.end)

    def _is_paren_list(self) -> bool:
        # `(a, b)` or `(name)` argument lists of call; `(1+2)` stays an expression.
        depth, j = 0, self.i
        while j < len(self.toks):
            x = self.toks[j].text
            if x == "(":
                depth += 1
            elif x == ")":
                depth -= 1
                if depth == 0:
                    inner = self.toks[self.i + 1:j]
                    return not inner or any(t.text == "," for t in inner) or (
                        len(inner) == 1 and inner[0].kind == "word")
            j += 1
        return False

    def paren_list(self) -> ParenList:
        open_ = self.expect("(")
        items = []
        if self.peek() is not None and self.peek().text != ")":
            while True:
                items.append(self.operand())
                if self.peek() is not None and self.peek().text == ",":
                    self.i += 1
                    continue
                break
        close = self.expect(")")
        return ParenList(items, open_.start, close.end)

    def vector(self) -> Vector:
        open_ = self.expect("{")
        items = []
        while True:
            t = self.peek()
            if t is not None and t.kind == "word" and t.text == "_":
                self.i += 1
                items.append(Sink(t.start, t.end))
            else:
                items.append(self.expr())
            t = self.peek()
            if t is not None and t.text == ",":
                self.i += 1
                continue
            break
        close = self.expect("}")
        return Vector(items, open_.start, close.end)

    def expr(self):
        p = ExprParser(self.toks, self.i, self.end)
        node = p.parse(0)
        self.i = p.i
        if isinstance(node, Expr):
            v = fold(node)
            if v is not None:
                text = ""  # folded constant keeps its span; the printer reprints the source text
                if isinstance(v, float):
                    return Float(v, text, node.start, node.end)
                return Int(v, text, node.start, node.end, v < 0 and False)
        return node

    def address(self) -> Address:
        open_ = self.expect("[")
        t = self.peek()
        if t is None or t.text == "]":
            raise OperandError("empty address `[]`", open_.start, (t.end if t else open_.end))
        node = self.expr()
        items = []
        while self.peek() is not None and self.peek().text == ",":
            self.i += 1
            items.append(self.operand())
        close = self.expect("]")
        base, offset, offset_expr = _split_address(node, open_.start, close.end)
        addr = Address(base, offset, open_.start, close.end, offset_expr=offset_expr, items=items)
        t = self.peek()
        if t is not None and t.kind == "dir" and t.text == ".unified":
            self.i += 1
            addr.unified = True
            addr.end = t.end
        return addr


def _split_address(node, start: int, end: int):
    """`reg`, `reg+imm`, `var+imm`, `imm` -> (base Name | None, offset, offset node | None)."""
    if isinstance(node, Name):
        return node, 0, None
    if isinstance(node, Int):
        return None, node.value, None
    if isinstance(node, Expr) and node.op in ("+", "-") and isinstance(node.args[0], Expr) and \
            node.op == "+" and _leftmost_name(node) is not None:
        # `[%r+8+8]`: the base is the leftmost name; everything added after it is the offset
        base = _leftmost_name(node)
        rest = _without_base(node)
        value = fold(rest)
        if value is None or isinstance(value, float):
            raise OperandError("the offset in an address must be an integer constant", rest.start, rest.end)
        return base, int(value), Int(int(value), "", rest.start, rest.end)
    if isinstance(node, Expr) and node.op in ("+", "-") and isinstance(node.args[0], Name):
        base, rest = node.args
        value = fold(rest)
        if value is None or isinstance(value, float):
            raise OperandError("the offset in an address must be an integer constant",
                               rest.start, rest.end)
        if node.op == "-":
            raw = f"+-{_src_int(value)}"
            raise OperandError(
                "`[base-offset]` is not PTX address syntax (ptxas: syntax error)", base.end, rest.end,
                help=f"write a negative offset as `{raw}`")
        if isinstance(rest, Expr):
            rest = Int(int(value), "", rest.start, rest.end)
        return base, int(value), rest
    raise OperandError("an address must be `[reg]`, `[reg+imm]`, `[var]`, `[var+imm]` or `[imm]`",
                       start, end)


def _leftmost_name(node):
    while isinstance(node, Expr) and node.op == "+":
        node = node.args[0]
    return node if isinstance(node, Name) else None


def _without_base(node):
    """`((base + a) + b)` -> `(a + b)` (only `+` chains reach here)."""
    left, right = node.args
    if isinstance(left, Name):
        return right
    return Expr("+", [_without_base(left), right], left.start, node.end)


def _src_int(v) -> str:
    return str(v)
