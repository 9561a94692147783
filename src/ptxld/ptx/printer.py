"""The canonical printer behind `ptxld fmt` / `ptxld.format`.

Layout follows nvcc's PTX: module directives at column 0, one statement per line, bodies indented
by a tab per block level, labels at column 0. Spacing inside a statement is normalised token by
token, so the output re-tokenizes to exactly the same tokens (the model does not change) and
formatting twice gives the same text. Comments between statements are kept in place.
"""
from __future__ import annotations

import re

from .. import patterns
from .lexer import Token, tokenize
from .nodes import Block, Directive, Function, Instruction, LabelDef, Module, Variable

_COMMENT = patterns.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_NO_SPACE_BEFORE = {",", ";", ")", "]", "}", ":"}
_NO_SPACE_AFTER = {"(", "[", "{", "@", "!"}
_UNARY_CONTEXT = {None, ",", "(", "[", "{", "=", "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^",
                  "<", ">", "<=", ">=", "==", "!=", "&&", "||", "?", ":", "~", "!"}


def join_tokens(toks: list[Token]) -> str:
    out: list[str] = []
    prev = None
    prev2 = None
    bracket = 0
    for t in toks:
        x = t.text
        if prev is None:
            sep = ""
        elif bracket and x not in ("{", "}") and prev not in ("{", "}"):
            sep = " " if prev == "," else ""
        elif x in _NO_SPACE_BEFORE or prev in _NO_SPACE_AFTER:
            sep = ""
        elif prev in ("-", "+", "~") and prev2 in _UNARY_CONTEXT:
            sep = ""  # unary sign sticks to its operand
        elif x == "(" and prev not in _UNARY_CONTEXT and not prev.startswith("."):
            sep = ""  # call-like: mask(...), generic(...)
        elif x == "<" or prev == "<" or x == ">":
            sep = ""  # %r<100>
        else:
            sep = " "
        if x == "[":
            bracket += 1
        elif x == "]":
            bracket = max(0, bracket - 1)
        out.append(sep)
        out.append(x)
        prev2, prev = prev, x
    return "".join(out)


def normalize(text: str) -> str:
    return join_tokens(tokenize(text))


class FormatError(ValueError):
    """The module cannot be formatted without losing text (syntax errors, or a comment the
    printer has no place for); `diagnostics` are the syntax errors, if any."""

    def __init__(self, message: str, diagnostics: list | None = None):
        super().__init__(message)
        self.diagnostics = diagnostics or []


def format_module(module: Module) -> str:
    """The canonical text of a module that parsed without errors; raises FormatError rather than
    drop a statement or a comment."""
    errors = [d for d in module.diagnostics if d.severity == "error"]
    if errors:
        name = module.source.filename
        first = "\n".join(f"{name}:{d.line}:{d.column}: error[{d.code}]: {d.message}" for d in errors[:20])
        raise FormatError(f"{first}\n{name}: not formatted: it has syntax errors", errors)
    out = _Printer(module).run()
    _check_comments_kept(module, out)
    return out


def _check_comments_kept(module: Module, out: str) -> None:
    """Every comment of the source is in the output (moved perhaps, never dropped)."""
    text = module.source.text
    printed: dict[str, int] = {}
    for c in _COMMENT.findall(out):
        key = " ".join(c.split())
        printed[key] = printed.get(key, 0) + 1
    for s, e in sorted(module.comments):
        key = " ".join(text[s:e].split())
        if printed.get(key, 0) <= 0:
            line, col = module.source.position(s)
            raise FormatError(f"{module.source.filename}:{line}:{col}: not formatted: the formatter "
                              "has no place for this comment (move it between statements)")
        printed[key] -= 1


class _Printer:
    def __init__(self, module: Module):
        self.m = module
        self.src = module.source
        self.text = module.source.text
        self.lines: list[str] = []
        self.comments = sorted(module.comments)
        self.ci = 0
        self.last_line = 0   # source line of the end of the last printed item

    def run(self) -> str:
        prev_kind = None
        for item in self.m.items:
            kind = type(item).__name__
            if prev_kind is not None and (kind == "Function" and item.body is not None or
                                          prev_kind == "FunctionBody" or
                                          (kind != prev_kind and prev_kind != "Directive")):
                self._blank()
            self.item(item, 0)
            prev_kind = "FunctionBody" if kind == "Function" and item.body is not None else kind
        self.flush_comments(len(self.text) + 1, 0)
        while self.lines and not self.lines[-1]:
            self.lines.pop()
        return "\n".join(self.lines) + "\n"

    def _blank(self) -> None:
        if self.lines and self.lines[-1] != "":
            self.lines.append("")

    def emit(self, depth: int, text: str, end: int) -> None:
        self.lines.append("\t" * depth + text)
        self.last_line = self.src.position(max(end - 1, 0))[0]

    def flush_comments(self, before: int, depth: int) -> None:
        while self.ci < len(self.comments) and self.comments[self.ci][0] < before:
            s, e = self.comments[self.ci]
            self.ci += 1
            text = self.text[s:e].rstrip()
            line = self.src.position(s)[0]
            if self.lines and line == self.last_line and "\n" not in text and self.lines[-1]:
                self.lines[-1] += "\t" + text
            else:
                for k, piece in enumerate(text.split("\n")):
                    self.lines.append(("\t" * depth if k == 0 else "") + piece.rstrip())
                self.last_line = self.src.position(e - 1)[0]

    def item(self, item, depth: int) -> None:
        # comments inside a statement (between operands, in a parameter list, between `)` and
        # `{`) move to the lines before it
        if isinstance(item, Function):
            inner = item.body.start if item.body is not None else item.end
        elif isinstance(item, Block):
            inner = item.start
        else:
            inner = item.end
        self.flush_comments(max(item.start, inner), depth)
        if isinstance(item, Instruction):
            self.emit(depth, instruction_text(item), item.end)
        elif isinstance(item, LabelDef):
            self.lines.append(f"{item.name}:")
            self.last_line = self.src.position(item.end)[0]
        elif isinstance(item, Variable):
            self.emit(depth, variable_text(item) + ";", item.end)
        elif isinstance(item, Directive):
            if item.raw and item.name not in (".loc", ".file", "@@DWARF", ".section") \
                    and _COMMENT.search(item.raw):
                # the statement's tokens are re-joined, which would mangle a comment inside it
                line, col = self.src.position(item.start)
                raise FormatError(f"{self.src.filename}:{line}:{col}: not formatted: a comment inside "
                                  f"the `{item.name}` statement has no place (does it lack its `;`?)")
            self.emit(depth, directive_text(item), item.end)
        elif isinstance(item, Block):
            self.block(item, depth)
        elif isinstance(item, Function):
            self.function(item, depth)

    def block(self, block: Block, depth: int) -> None:
        self.emit(depth, "{", block.start + 1)
        for it in block.items:
            self.item(it, depth + 1)
        self.flush_comments(block.end - 1, depth + 1)
        self.emit(depth, "}", block.end)

    def function(self, f: Function, depth: int) -> None:
        head = []
        if f.linkage:
            head.append(f.linkage)
        head.append(f.kind_)
        head += [f".attribute({a})" for a in f.attributes]
        if f.kind_ == ".func" and (f.returns or self._had_empty_returns(f)):
            head.append("(" + ", ".join(variable_text(p) for p in f.returns) + ")")
        head.append(f.name)
        line = " ".join(head)
        if f.params:
            self.emit(depth, line + "(", f.start)
            for k, p in enumerate(f.params):
                self.lines.append("\t" * (depth + 1) + variable_text(p) + ("," if k + 1 < len(f.params) else ""))
            line = ")"
        elif f.kind_ == ".entry" or self._had_empty_params(f):
            line += "()"
        for d in f.directives:
            if d.name == ".noreturn":
                line += " .noreturn"
            else:
                self.emit(depth, line, f.start)
                line = directive_text(d).rstrip(";") + (";" if d.name == ".pragma" else "")
        if f.body is None:
            self.emit(depth, line + ";", f.end)
            return
        self.emit(depth, line, f.start)
        self.block(f.body, depth)

    def _had_empty_returns(self, f: Function) -> bool:
        return self.text.find("()", f.start, f.name_start) >= 0

    def _had_empty_params(self, f: Function) -> bool:
        rest = self.text[f.name_start + len(f.name):f.name_start + len(f.name) + 64].lstrip()
        return rest.startswith("(") and rest[1:].lstrip().startswith(")")


def instruction_text(ins: Instruction) -> str:
    parts = []
    if ins.guard is not None:
        parts.append(("@!" if ins.guard.negated else "@") + ins.guard.name.text + " ")
    parts.append(ins.opcode)
    ops = join_tokens(tokenize(ins.operand_text))
    if ops:
        parts.append("\t" + ops)
    return "".join(parts) + ";"


def variable_text(v: Variable) -> str:
    parts = []
    if v.linkage:
        parts.append(v.linkage)
    parts.append(v.space)
    if v.align is not None:
        parts.append(f".align {v.align}")
    parts += [f".attribute({a})" for a in v.attributes]
    if v.vector:
        parts.append(v.vector)
    if v.type:
        parts.append(v.type)
    if v.ptr is not None:
        parts.append(".ptr" + v.ptr)
    name = v.name
    if v.range_count is not None:
        name += f"<{v.range_count}>"
    for d in v.dims:
        name += "[]" if d is None else f"[{d}]"
    parts.append(name)
    text = " ".join(parts)
    if v.init is not None and v.module is not None:
        src = v.module.source.text
        eq = src.find("=", v.name_start, v.end)
        semi = v.end - 1 if src[v.end - 1:v.end] == ";" else v.end
        if eq >= 0:
            text += " = " + _init_text(src, eq + 1, semi)
    return text


def _init_text(src: str, start: int, stop: int) -> str:
    # the initializer runs to the end of this declarator: stop at a top-level comma
    toks = tokenize(_strip_comments(src[start:stop]))
    depth, out = 0, []
    for t in toks:
        if t.text in ("{", "("):
            depth += 1
        elif t.text in ("}", ")"):
            depth -= 1
        elif depth == 0 and t.text in (",", ";"):
            break
        out.append(t)
    return join_tokens(out)


def _strip_comments(text: str) -> str:
    return _COMMENT.sub(" ", text)


def directive_text(d: Directive) -> str:
    if d.name in (".loc", ".file", "@@DWARF", ".section"):
        return d.raw.strip() if d.raw else d.name
    if d.name == ".target":
        return ".target " + ", ".join(d.args)
    if d.name in (".version", ".address_size"):
        return f"{d.name} {' '.join(d.args)}"
    if d.raw:
        body = normalize(d.raw)
        return body if body.endswith(";") else body + ";"
    return d.name + (" " + ", ".join(a for a in d.args if a != ",") if d.args else "")
