"""PTX module parser.

Two passes over the text:
1. a coarse scanner splits the module into statements (`;`-terminated, or newline-terminated for
   `.loc`/`.file`/`@@DWARF`), function bodies and nested `{ }` blocks, skipping comments and strings;
2. each statement is parsed on its own, so one bad statement never hides the rest (recovery is at
   the next statement). Instruction operands are tokenized per statement.
Nothing here raises on bad input: problems become diagnostics on the module.
"""
from __future__ import annotations

import contextlib
import gc
import re

from .. import patterns
from .nodes import Block, Directive, Expr, Int, Function, Guard, Instruction, LabelDef, Module, Name, Scope, Variable
from .exprs import ExprError, ExprParser, fold
from .lexer import Token, tokenize
from .printer import join_tokens
from .source import Source
from .syntax import add_diagnostic, non_ascii_error, report_operand_errors, syntax_error

_NO_SEMICOLON = "expected `;` at the end of the statement"

_COARSE = patterns.compile(r"""
 (?P<simple>[^;{}"/#]+;)
|(?P<text>[^;{}"/#]+)
|(?P<lc>//[^\n]*)
|(?P<bc>/\*.*?\*/)
|(?P<ubc>/\*.*)
|(?P<str>"(?:[^"\\\n]|\\.)*")
|(?P<ustr>"[^\n]*)
|(?P<c>[;{}/#])
""", re.X | re.S)
_BLANK = patterns.compile(r"\s*")
_LABELS = patterns.compile(r"\s*([A-Za-z_$%][\w$]*)\s*:(?!:)")
_INSTR = patterns.compile(r"(?:@\s*(!?)\s*([A-Za-z_$%][\w$]*)(?![\w$])\s*)?([A-Za-z_][\w$]*(?:(?:\.|::)[\w$]+)*)")
# a whole plain instruction statement after blanks: [@[!]guard] opcode operands ;  (group 4 set =
# it is a label)
# (possessive: no part gives back what it took, which never changes a match here — the operand
# text takes every character an opcode has but `:` — and saves the regex engine a third)
# Operand text may hold vectors `{%r1, %r2}`: one level of braces around text with no `;` (a
# brace after an opcode never opens a block: a block's statements end with `;`).
_FAST_STMT = patterns.compile(r"\s*+(?:@(!?)([A-Za-z_$%][\w$]*+)\s+)?([a-z][\w$]*+(?:\.[\w$]++|::[\w$]++)*+)"
                              r"(?:(\s*:(?!:))|((?:[^;{}\"/#:]++|\{[^;{}\"/#:]*+\})*+);)")
# at module level: line comments, then a function header and its `{` (nvcc's `// .globl` line
# and kernel header); group 1 is the header, which `_FAST_HEADER` must match whole
_FAST_FUNCTION = patterns.compile(r"(?:\s*+//[^\n]*+)*+\s*+(?=\.(?:visible|weak|entry|func)\b)([^;{}\"/#]*+)\{")
_LINE_COMMENT = patterns.compile(r"//[^\n]*")
# a label, when a plain instruction follows it (nvcc's `$L__BB0_2:` lines)
_FAST_LABEL = patterns.compile(r"\s*+([A-Za-z_$%][\w$]*+)\s*:(?!:)")
# `.reg [.vN] .type name[<N>]`: groups vector, type, name, count
_REG_DECL = r"\.reg\s+(?:(\.v[248])\s+)?(\.[a-z0-9]+)\s+([A-Za-z_$%][\w$]*)\s*(?:<\s*(\d+)\s*>)?\s*"
_FAST_REG_STMT = patterns.compile(_REG_DECL + ";")   # in the scanner, with its `;`
_FAST_REG = patterns.compile(_REG_DECL + "$")        # a statement's text (the `;` already cut off)
# directives that end at the newline, not at `;` (nvcc writes `.version 8.0` with no `;`)
# a whole function header in its most common form: `[.visible|.weak] .entry|.func [(ret)] name
# [(params)]`, each parameter `.param [.align N] .<type> name[[N]]` (a kernel's by-value struct:
# `.param .align 64 .b8 p[128]`) (groups: linkage, kind, return, name, params)
_NAME = r"[A-Za-z_$%][\w$]*"
_PARAM = rf"\.param\s+(?:\.align\s+([1-9]\d*)\s+)?(\.[bsuf]\d+)\s+({_NAME})(?:\s*\[\s*([1-9]\d*|0)\s*\])?"
_ANY_PARAM = re.sub(r"\((?!\?)", "(?:", _PARAM)  # the same without its groups
# performance directives after the parameters, with plain numbers: `.maxntid 128, 1, 1`
_PERF = r"\.(?:maxntid|reqntid|minnctapersm|maxnctapersm|maxnreg)\s+\d+(?:\s*,\s*\d+)*"
_FAST_HEADER = patterns.compile(
    rf"\s*(?:(\.visible|\.weak)\s+)?(\.entry|\.func)(?![\w$])\s*(?:\((\s*{_ANY_PARAM}\s*)\)\s*)?({_NAME})\s*"
    rf"(?:\((\s*{_ANY_PARAM}\s*(?:,\s*{_ANY_PARAM}\s*)*|\s*)\))?((?:\s*{_PERF})*)\s*")
_FAST_PARAM = patterns.compile(_PARAM)  # groups: align, type, name, array size
_FAST_PERF = patterns.compile(rf"(\.[a-z]+)\s+(\d+(?:\s*,\s*\d+)*)")
# what a function header starts with (`_opens_block` reads the same from its words)
_FUNCTION_START = patterns.compile(r"\s*(?:(?:\.extern|\.visible|\.weak|\.common)\s+)*\.(?:entry|func)")
_EOL_RE = patterns.compile(r"(?:\.loc|\.file|\.version|\.target|\.address_size|@@DWARF)(?![\w$])|#")
# a complete module header directive, which may share its line with the next statement
_HEADER_DIRECTIVE = patterns.compile(r"\.version[ \t]+\d+\.\d+|\.address_size[ \t]+\d+"
                                     r"|\.target[ \t]+[\w]+(?:\s*,\s*[\w]+)*")
_LINKAGE = {".extern", ".visible", ".weak", ".common"}
_SPACES = {".reg", ".sreg", ".const", ".global", ".local", ".param", ".shared", ".tex"}
_FUNC_KW = {".entry", ".func"}
# a new top-level statement starting on its own line (ends a legacy prototype written without `;`)
_TOPLEVEL_LINE = patterns.compile(r"\n[ \t]*(?=\.(?:visible|extern|weak|func|entry|file|global|const|shared|"
                                  r"tex|local|version|target|loc|section)\b)")
_HEADER_DIRECTIVES = {".maxnreg", ".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm",
                      ".reqnctapercluster", ".explicitcluster", ".maxclusterrank", ".blocksareclusters",
                      ".noreturn", ".pragma", ".abi_preserve", ".abi_preserve_control"}


def parse(text: str, *, filename: str = "<string>", eager: bool = True,
          skip_bodies: dict[int, int] | None = None) -> Module:
    """Parse a PTX module. Never raises on bad PTX: errors are in `Module.diagnostics`.

    `skip_bodies` maps the offset just inside a function body's `{` to the offset of its `}`
    (anything with a dict's `get`): those bodies are left empty (the parallel checker gives each
    process its own functions)."""
    module = Module(Source(text, filename))
    if not text.isascii():
        add_diagnostic(module, non_ascii_error(module.source))
    with no_gc():
        _Parser(module, skip_bodies).run()
        if eager:
            for ins in module.instructions:
                ins.operands  # noqa: B018 - parse now so syntax errors are reported
            report_operand_errors(module)
    return module


def parse_body(module: Module, function: Function, brace: int, end: int) -> None:
    """Parse one function body that `parse(skip_bodies=...)` left out of `module`: `brace` is the
    offset of its `{`, `end` that of its `}`. Its statements join the function as if parsed with
    the module (instructions are appended to `module.instructions`)."""
    p = _Parser(module)
    p.open_block(brace, function)
    p.run(brace + 1, end + 1)


@contextlib.contextmanager
def no_gc():
    """Building a big tree allocates millions of objects and no garbage: the cyclic collector's
    passes over them cost a third of the time, so pause it."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class _Parser:
    def __init__(self, module: Module, skip_bodies: dict[int, int] | None = None):
        self.m = module
        self.skip = skip_bodies or {}
        self.text = module.source.text
        # container stack: (Block | None for module, Scope, Function | None)
        self.stack: list[tuple] = [(None, module.scope, None)]

    # ------------------------------------------------------------ pass 1: statements
    def run(self, pos: int = 0, body_end: int | None = None) -> None:
        """Parse from `pos` to the end of the text; with `body_end` (just after the `}` of the
        function body opened before the call), to the end of that body."""
        text, n = self.text, len(self.text) if body_end is None else body_end
        pend = -1            # start of the pending statement
        eol = False          # pending statement ends at newline
        comments: list = []  # comment spans inside the pending statement
        inner = 0            # braces opened inside the pending statement (vectors, initializers)
        match = _COARSE.match
        fast = _FAST_STMT.match
        fast_label = _FAST_LABEL.match
        blank = _BLANK.match
        fast_reg = _FAST_REG_STMT.match
        instructions = self.m.instructions
        module = self.m
        fast_function = _FAST_FUNCTION.match
        general_until = -1   # a header the fast path refused: not tried again before its `{`
        while pos < n:
            if pend < 0 and len(self.stack) == 1 and pos > general_until:
                # a function header in its commonest form, after line comments: one match
                h = fast_function(text, pos)
                if h is not None:
                    if self._fast_function(h, pos):
                        stop = self.skip.get(h.end()) if self.skip else None
                        pos = h.end() if stop is None else stop
                        continue
                    general_until = h.end()
            if pend < 0 and len(self.stack) > 1:
                # the bulk of a big module: one regex match per plain instruction, made into an
                # Instruction right here (a method call per statement is a tenth of the time)
                f = fast(text, pos)
                labels = []
                if f is None:
                    lab = fast_label(text, pos)
                    if lab is not None:
                        f = fast(text, lab.end())
                        if f is not None and f.group(4) is None:
                            labels = [self._label(lab.group(1), lab.start(1), lab.end(1))]
                        else:
                            f = None
                if f is not None:
                    negated, gname, opcode, label, operand_text = f.groups()
                    if label is None:
                        op_s = f.start(3)
                        if gname is None:
                            guard, start = None, op_s
                        else:
                            g_s = f.start(2)
                            start = g_s - 1 - len(negated)
                            guard = Guard(negated == "!", Name(gname, g_s, g_s + len(gname)), start,
                                          g_s + len(gname))
                        top = self.stack[-1]
                        pos = f.end()
                        ins = Instruction(opcode, start, pos, op_s, op_s + len(opcode), operand_text,
                                          guard, module, top[2], top[1], labels)
                        instructions.append(ins)
                        top[0].items.append(ins)
                        inner = 0  # a statement begins (the general path resets it there too)
                        continue
                pos = blank(text, pos).end()
                if pos >= n:
                    break
                c = text[pos]
                if c == "/" and text.startswith("//", pos):
                    # a line comment between statements (nvcc writes one before every block)
                    e = text.find("\n", pos)
                    e = n if e < 0 else e
                    module.comments.append((pos, e))
                    pos = e
                    continue
                if c == "." and text.startswith(".reg", pos):
                    r = fast_reg(text, pos)
                    if r is not None and self._fast_register(r):
                        pos = r.end()
                        inner = 0
                        continue
            m = match(text, pos)
            kind = m.lastgroup
            s, e = m.start(), m.end()
            if kind == "simple":
                if pend < 0 and len(self.stack) > 1:
                    b = _BLANK.match(text, s).end()
                    if b >= e - 1:
                        pos = e  # empty statement
                        continue
                    if not _EOL_RE.match(text, b) is not None:
                        self.statement(b, e - 1, e, ())
                        pos = e
                        inner = 0
                        continue
                e -= 1  # not the fast case: treat as text, then the `;`
                kind = "text"
            if kind == "text":
                if pend < 0:
                    b = _BLANK.match(text, s).end()
                    if b >= e:
                        pos = e
                        continue
                    pend, comments, inner = b, [], 0
                    eol = _EOL_RE.match(text, b) is not None
                if not eol and not inner and len(self.stack) == 1 and text.startswith(".", pend):
                    cut = self._legacy_prototype_end(pend, max(s, pend), e)
                    if cut >= 0:
                        self.statement(pend, cut, cut, comments, missing_semicolon=True)
                        pend = -1
                        pos = cut
                        continue
                if eol and len(self.stack) == 1:
                    h = _HEADER_DIRECTIVE.match(text, pend)
                    if h is not None and text[h.end():e].split("\n", 1)[0].strip().startswith("."):
                        # `.target sm_80 .address_size 64` (or a whole module) on one line
                        self.statement(pend, h.end(), h.end(), comments)
                        pend, eol = -1, False
                        pos = h.end()
                        continue
                if eol:
                    nl = text.find("\n", max(s, pend), e)
                    while nl >= 0 and text[pend:nl].rstrip().endswith(","):
                        nl = text.find("\n", nl + 1, e)  # `.target sm_90,` continues on the next line
                    if nl >= 0:
                        self.statement(pend, nl, nl, comments)
                        pend, eol = -1, False
                        pos = nl + 1
                        continue
                pos = e
                continue
            pos = e
            if kind in ("lc", "bc"):
                self.m.comments.append((s, e))  # every comment: the formatter keeps them all
                if pend >= 0:
                    comments.append((s, e))
                    if eol and kind == "lc":
                        self.statement(pend, s, s, comments)
                        pend, eol = -1, False
                continue
            if kind == "ubc":
                syntax_error(self.m, s, s + 2, "unterminated `/*` comment", code="PTX0004")
                continue
            if kind == "ustr":
                syntax_error(self.m, s, e, "unterminated string literal", code="PTX0004")
                if pend < 0:
                    pend, comments, inner = s, [], 0
                eol = True  # recover at the next line
                continue
            if kind == "str":
                if pend < 0:
                    pend, comments, inner, eol = s, [], 0, False
                continue
            c = text[s]
            if c == "#":
                ls = text.rfind("\n", 0, s) + 1
                if pend < 0 and not text[ls:s].strip():
                    pend, comments, inner, eol = s, [], 0, True
                elif pend < 0:
                    pend, comments, inner, eol = s, [], 0, False
                continue
            if c == "/":
                if pend < 0:
                    pend, comments, inner, eol = s, [], 0, False
                continue
            if c == ";":
                if pend < 0:
                    continue  # empty statement
                self.statement(pend, s, e, comments)
                # a `{` left open inside the statement (`m{ad ...;`) ends with it: the next `}`
                # still closes the block around it
                pend, eol, inner = -1, False, 0
                continue
            if c == "{":
                if pend >= 0 and (inner or not self._opens_block(pend, s, comments)):
                    inner += 1
                    continue
                if pend >= 0 and self._is_section(pend, s):
                    close = text.find("}", e)
                    stop = n if close < 0 else close + 1
                    if close < 0:
                        syntax_error(self.m, s, e, "unclosed `{` of `.section`", code="PTX0005")
                    self._section(pend, s, stop)
                    pend, eol = -1, False
                    pos = stop
                    continue
                header = stop = None
                if pend >= 0:
                    if len(self.stack) > 1:  # labels before a nested block
                        self.statement(pend, s, s, comments, before_block=True)
                    else:
                        stop = self.skip.get(e) if self.skip else None
                        # parameters are read even for a body left to another process: a call
                        # checked here is matched against its callee's declaration (PTX0810)
                        header = self.header(pend, s, comments)
                    pend, eol = -1, False
                self.open_block(s, header)
                if stop is not None:
                    pos = stop
                continue
            if c == "}":
                if inner:
                    inner -= 1
                    continue
                if pend >= 0:
                    self.statement(pend, s, s, comments, missing_semicolon=True)
                    pend, eol = -1, False
                self.close_block(s, e)
                continue
        if pend >= 0:
            self.statement(pend, n, n, comments, missing_semicolon=not eol)
        while len(self.stack) > 1:
            block = self.stack[-1][0]
            syntax_error(self.m, block.start, block.start + 1, "unclosed `{`: the module ends first",
                         code="PTX0005")
            self.close_block(n, n)

    def _legacy_prototype_end(self, pend: int, s: int, e: int) -> int:
        """A module-level statement left without `;` (old PTX writes `.func` prototypes so; a
        typo leaves others so) ends before the next line that starts a top-level statement,
        so it does not swallow the function after it."""
        for m in _TOPLEVEL_LINE.finditer(self.text, s, e):
            cut = m.end()
            seg = self.text[pend:cut]
            if seg.count("(") == seg.count(")"):
                return cut
        return -1

    def _stmt_text(self, start: int, end: int, comments: list) -> str:
        t = self.text[start:end]
        for cs, ce in comments:
            if start <= cs < end:
                a, b = cs - start, min(ce, end) - start
                t = t[:a] + " " * (b - a) + t[b:]
        return t

    def _opens_block(self, pend: int, brace: int, comments: list) -> bool:
        """Does a `{` after pending text open a body? True for function headers and `.section`."""
        if not comments and _FUNCTION_START.match(self.text, pend, brace) is not None:
            return True  # the common case, without splitting the whole header into words
        text = self._stmt_text(pend, brace, comments)
        words = text.split()
        if not words:
            return True
        if all(w.endswith(":") for w in words):
            return True  # label(s) then a nested block
        if len(self.stack) > 1 and _labels_and_line_directives(text):
            return True  # `L: .loc 1 5 1` then a nested block (nvcc -G)
        for w in words:
            if w in _LINKAGE:
                continue
            return w in _FUNC_KW or w == ".section" or w.startswith(".entry") or w.startswith(".func")
        return False

    def _is_section(self, pend: int, brace: int) -> bool:
        return self.text[pend:brace].lstrip().startswith(".section")

    def _section(self, start: int, brace: int, stop: int) -> None:
        d = Directive(".section", [self.text[start:brace].split()[1:]], start, stop,
                      raw=self.text[start:stop])
        self._add(d)

    # ------------------------------------------------------------ blocks
    def open_block(self, start: int, header: Function | None) -> None:
        parent_scope = self.stack[-1][1]
        block = Block(start, start + 1, scope=Scope(parent_scope))
        func = self.stack[-1][2]
        if header is not None:
            header.body = block
            func = header
            for p in header.params + header.returns:
                block.scope.names[p.name] = p
        elif len(self.stack) == 1:
            syntax_error(self.m, start, start + 1, "a `{` block at module scope must follow a function "
                         "header (`.entry` or `.func`)")
        self._add(block) if header is None else None
        self.stack.append((block, block.scope, func))

    def close_block(self, start: int, end: int) -> None:
        if len(self.stack) == 1:
            syntax_error(self.m, start, end, "unmatched `}`", code="PTX0005")
            return
        block, _, func = self.stack.pop()
        block.end = end
        if func is not None and func.body is block:
            func.end = end

    def _add(self, item) -> None:
        block = self.stack[-1][0]
        if block is None:
            self.m.items.append(item)
        else:
            block.items.append(item)

    # ------------------------------------------------------------ pass 2: one statement
    def statement(self, start: int, stop: int, end: int, comments: list,
                  missing_semicolon: bool = False, before_block: bool = False) -> None:
        text = self._stmt_text(start, stop, comments) if comments else self.text[start:stop]
        in_function = len(self.stack) > 1
        if in_function and not missing_semicolon and text[0] == ".":
            if self._quick_directive(text, start, end):
                return
        if missing_semicolon and not _EOL_RE.match(text.lstrip()) is not None:
            if not in_function and self._top_is_header_only(text):
                pass  # legacy prototypes without `;`
            else:
                syntax_error(self.m, stop, stop + 1, _NO_SEMICOLON, help="add `;`")
        c0 = text[0]
        if c0 == "#":
            syntax_error(self.m, start, stop, "C preprocessor directive in PTX: ptxas does not run the "
                         "preprocessor", code="PTX0003",
                         help="preprocess the file first (e.g. `cpp -P`), or remove the line")
            return
        if text.startswith("@@DWARF"):
            self._add(Directive("@@DWARF", [], start, end, raw=text))
            return
        pos = 0
        labels = []
        if c0 != ".":
            while True:
                m = _LABELS.match(text, pos)
                if not m:
                    break
                labels.append(LabelDef(m.group(1), start + m.start(1), start + m.end(1)))
                pos = m.end()
        scope = self.stack[-1][1]
        for lab in labels:
            self._define_label(lab)
        b = _BLANK.match(text, pos).end()
        if b < len(text) and text[b] == "." and _EOL_RE.match(text, b) is not None:
            # `L: .loc 1 2 3` (nvcc writes several such lines after a label): each line-ended
            # directive is a statement of its own, then whatever follows on the next lines
            nl = text.find("\n", b)
            if nl >= 0 and text[nl:].strip() and not text[b:nl].rstrip().endswith(","):
                self.directive_statement(text[:nl], start, b, start + nl)
                self.statement(start + nl + 1, stop, end, comments, missing_semicolon, before_block)
                return
            if before_block:
                self.directive_statement(text, start, b, end)
                return
        if before_block and b < len(text):
            syntax_error(self.m, start + b, stop, "expected `;` before `{`", help="add `;`")
            return
        if b >= len(text):
            if missing_semicolon and labels:
                # a label right before `}` is fine
                self.m.diagnostics[-1:] = [d for d in self.m.diagnostics[-1:] if d.message != _NO_SEMICOLON]
            return
        if text[b] == ".":
            self.directive_statement(text, start, b, end)
            return
        if not in_function:
            self._bad_toplevel(text, start, b)
            return
        m = _INSTR.match(text, b)
        if not m:
            t = text[b:].split(None, 1)[0][:40]
            syntax_error(self.m, start + b, start + b + len(t), f"expected an instruction, found `{t}`")
            return
        guard = None
        if m.group(2):
            g_start = start + m.start()
            name_s = start + m.start(2)
            guard = Guard(m.group(1) == "!", Name(m.group(2), name_s, name_s + len(m.group(2))),
                          g_start, name_s + len(m.group(2)))
        elif text[b] == "@":
            syntax_error(self.m, start + b, start + b + 1, "malformed guard predicate",
                         help="write `@%p` or `@!%p` before the opcode")
            return
        op_s = start + m.start(3)
        rest = m.end()
        ins = Instruction(m.group(3), start + b, end, op_s, start + rest, text[rest:], guard, self.m,
                          self.stack[-1][2], scope, labels)
        self.m.instructions.append(ins)
        self._add(ins)

    def _label(self, name: str, start: int, end: int) -> LabelDef:
        lab = LabelDef(name, start, end)
        self._define_label(lab)
        return lab

    def _define_label(self, lab: LabelDef) -> None:
        scope = self.stack[-1][1]
        if lab.name in scope.labels:
            syntax_error(self.m, lab.start, lab.end, f"label `{lab.name}` is defined twice", code="PTX0010")
        scope.labels[lab.name] = lab
        self._add(lab)

    def _fast_register(self, r: re.Match) -> bool:
        """`.reg .b32 %r<4>;` matched by `_FAST_REG_STMT` in the scanner loop."""
        return self._register(r, r.start(), r.end(), 0)

    def _register(self, r: re.Match, start: int, end: int, base: int) -> bool:
        """Declare the `.reg` matched by `_REG_DECL` (match offsets + `base` = module offsets)
        without tokenizing; False if the name repeats (the general path reports it)."""
        vector, vtype, name, count = r.groups()
        top = self.stack[-1]
        scope = top[1]
        table = scope.ranges if count is not None else scope.names
        if name in table:
            return False
        var = Variable(name, ".reg", vtype, start, end, vector=vector, name_start=base + r.start(3),
                       module=self.m, function=top[2])
        if count is not None:
            var.range_count = int(count)
        table[name] = var
        top[0].items.append(var)
        return True

    def _quick_directive(self, text: str, start: int, end: int) -> bool:
        """`.loc` lines and `.reg` declarations without tokenizing (debug PTX has one `.loc` per
        source line). False: take the general path."""
        if text.startswith(".loc") and _EOL_RE.match(text) is not None:
            raw = text.rstrip()
            if "\n" in raw:
                return False  # more statements follow on the next lines
            self._add(Directive(".loc", raw.split()[1:], start, start + len(raw), raw=raw))
            return True
        m = _FAST_REG.match(text)
        return m is not None and self._register(m, start, end, start)

    def _top_is_header_only(self, text: str) -> bool:
        """A function prototype (old PTX leaves out their `;`)."""
        words = [w for w in text.split(None, 4) if w not in _LINKAGE]
        return bool(words) and (words[0] in _FUNC_KW or words[0].startswith((".func(", ".entry(")))

    def _bad_toplevel(self, text: str, start: int, b: int) -> None:
        word = text[b:].split(None, 1)[0][:40]
        if _INSTR.match(text, b):
            syntax_error(self.m, start + b, start + b + len(word),
                         f"instruction `{word}` outside a function body",
                         help="instructions must be inside an `.entry` or `.func` body")
        else:
            syntax_error(self.m, start + b, start + b + len(word), f"unexpected `{word}` at module scope")

    # ------------------------------------------------------------ directives and declarations
    def directive_statement(self, text: str, start: int, b: int, end: int) -> None:
        toks = tokenize(text[b:], start + b)
        i = 0
        while i < len(toks):
            try:
                i = self.directive(toks, i, end)
            except _Err as e:
                syntax_error(self.m, e.start, e.end, e.msg, help=e.help)
                return
            except ExprError as e:
                t = e.token or toks[-1]
                syntax_error(self.m, t.start, t.end, str(e))
                return

    def directive(self, toks: list[Token], i: int, end: int) -> int:
        t = toks[i]
        if t.kind != "dir":
            raise _Err(f"unexpected `{t.text}`", t.start, t.end)
        name = t.text
        if name in _LINKAGE or name in _FUNC_KW:
            j = i
            while j < len(toks) and toks[j].text in _LINKAGE:
                j += 1
            if j < len(toks) and toks[j].text in _FUNC_KW:
                func, k = self.function_header(toks, i)
                self._declare_function(func, definition=False)
                if k < len(toks) and toks[k].text == ";":
                    k += 1
                return k
            return self.declaration(toks, i, end)
        if name in _SPACES:
            return self.declaration(toks, i, end)
        if name == ".version":
            return self._version(toks, i, end)
        if name == ".target":
            args = [x.text for x in toks[i + 1:] if x.text != ","]
            self.m.targets = args if not self.m.targets else self.m.targets
            self._add(Directive(name, args, t.start, end))
            return len(toks)
        if name == ".address_size":
            args = [x.text for x in toks[i + 1:]]
            if len(args) == 1 and args[0] in ("32", "64"):
                self.m.address_size = int(args[0])
            else:
                raise _Err("`.address_size` takes 32 or 64", t.start, toks[-1].end)
            self._add(Directive(name, args, t.start, end))
            return len(toks)
        # every other directive is kept with its tokens (.loc, .file, .pragma, .alias, perf, ...)
        self._add(Directive(name, [x.text for x in toks[i + 1:]], t.start, end,
                            raw=self.text[t.start:toks[-1].end]))
        return len(toks)

    def _version(self, toks, i, end) -> int:
        t = toks[i]
        if i + 1 >= len(toks) or toks[i + 1].kind != "num" or not re.fullmatch(r"\d+\.\d+", toks[i + 1].text):
            raise _Err("`.version` takes `major.minor`, e.g. `.version 8.0`", t.start,
                       toks[-1].end)
        major, minor = toks[i + 1].text.split(".")
        if self.m.version is None:
            self.m.version = (int(major), int(minor))
        self._add(Directive(".version", [toks[i + 1].text], t.start, end))
        return i + 2 if i + 2 < len(toks) else len(toks)

    def header(self, pend: int, brace: int, comments: list) -> Function | None:
        """The function header(s) before a `{`; earlier prototypes in the same text are declarations."""
        text = self._stmt_text(pend, brace, comments)
        f = _FAST_HEADER.fullmatch(text)
        if f is not None and (f.group(3) is None or f.group(2) == ".func"):
            func = self._fast_header(f, pend)
            self._declare_function(func, definition=True)
            return func
        toks = tokenize(text, pend)
        i, func = 0, None
        try:
            while i < len(toks):
                j = i
                while j < len(toks) and toks[j].text in _LINKAGE:
                    j += 1
                if j >= len(toks) or toks[j].text not in _FUNC_KW:
                    raise _Err(f"expected a function header before `{{`, found `{toks[i].text}`",
                               toks[i].start, toks[i].end)
                if func is not None:
                    self._declare_function(func, definition=False)
                func, i = self.function_header(toks, i)
                if i < len(toks) and toks[i].text == ";":
                    raise _Err("`;` ends the function declaration before its body", toks[i].start,
                               toks[i].end)
        except _Err as e:
            syntax_error(self.m, e.start, e.end, e.msg, help=e.help)
            if func is None:
                func = Function(".func", "<error>", pend, brace, module=self.m)
        except ExprError as e:
            tk = e.token or toks[-1]
            syntax_error(self.m, tk.start, tk.end, str(e))
            if func is None:
                func = Function(".func", "<error>", pend, brace, module=self.m)
        self._declare_function(func, definition=True)
        return func

    def _fast_function(self, h: re.Match, pos: int) -> bool:
        """What the general path does with line comments, a header `_FAST_HEADER` takes whole and
        its `{` (matched by `_FAST_FUNCTION` at `pos`); False (nothing done) for any other header."""
        start, brace = h.span(1)
        f = _FAST_HEADER.fullmatch(self.text, start, brace)
        if f is None or (f.group(3) is not None and f.group(2) != ".func"):
            return False
        self.m.comments.extend(c.span() for c in _LINE_COMMENT.finditer(self.text, pos, start))
        func = self._fast_header(f, 0)
        self._declare_function(func, definition=True)
        self.open_block(brace, func)
        return True

    def _fast_header(self, f: re.Match, base: int) -> Function:
        """The Function the general path builds from a header `_FAST_HEADER` matched, without
        tokenizing it."""
        first = 1 if f.group(1) else 2
        func = Function(f.group(2), f.group(4), base + f.start(first), base + f.end(4),
                        name_start=base + f.start(4), linkage=f.group(1), module=self.m)
        if f.group(3) is not None:
            func.returns = self._fast_params(f.string, f.start(3), f.end(3), base, func)
        if f.group(5) is not None:
            func.params = self._fast_params(f.string, f.start(5), f.end(5), base, func)
            func.end = base + f.string.index(")", f.end(5)) + 1
        for d in _FAST_PERF.finditer(f.string, f.start(6), f.end(6)):
            func.directives.append(Directive(d.group(1), re.findall(r"\d+", d.group(2)), base + d.start(),
                                             base + d.end()))
            func.end = base + d.end()
        return func

    def _fast_params(self, text: str, start: int, end: int, base: int, func: Function) -> list:
        out = []
        for p in _FAST_PARAM.finditer(text, start, end):
            align, vtype, name, size = p.groups()
            out.append(Variable(name, ".param", vtype, base + p.start(), base + p.end(),
                                align=None if align is None else int(align),
                                dims=None if size is None else [int(size)],
                                name_start=base + p.start(3), module=self.m, function=func))
        return out

    def _declare_function(self, func: Function, definition: bool) -> None:
        prev = self.m.functions.get(func.name)
        if prev is None or definition:
            self.m.functions[func.name] = func
        self.m.scope.names.setdefault(func.name, func)
        if definition and prev is not None and prev.body is not None and prev is not func:
            syntax_error(self.m, func.name_start, func.name_start + len(func.name),
                         f"function `{func.name}` is defined twice", code="PTX0011")
        self._add(func)

    def function_header(self, toks: list[Token], i: int) -> tuple[Function, int]:
        start = toks[i].start
        linkage = None
        while toks[i].text in _LINKAGE:
            linkage = toks[i].text
            i += 1
        kind = toks[i].text
        i += 1
        func = Function(kind, "", start, toks[i - 1].end, linkage=linkage, module=self.m)
        n = len(toks)
        while i < n and toks[i].text == ".attribute":
            i, attrs = self._attribute(toks, i)
            func.attributes += attrs
        if kind == ".func" and i < n and toks[i].text == "(":
            func.returns, i = self.param_list(toks, i, func)
        if i >= n or toks[i].kind != "word":
            at = toks[i] if i < n else toks[-1]
            raise _Err(f"expected the {kind[1:]} name", at.start, at.end)
        func.name, func.name_start = toks[i].text, toks[i].start
        i += 1
        if i < n and toks[i].text == "(":
            func.params, i = self.param_list(toks, i, func)
        # performance directives, .noreturn, pragmas: up to the next header or the end
        while i < n and toks[i].text in _HEADER_DIRECTIVES:
            d = toks[i]
            j = i + 1
            while j < n and toks[j].kind != "dir" and toks[j].text != ";":
                j += 1
            if d.text == ".noreturn":
                func.noreturn = True
            func.directives.append(Directive(d.text, [x.text for x in toks[i + 1:j] if x.text != ","],
                                             d.start, toks[j - 1].end))
            i = j
            if i < n and toks[i].text == ";" and d.text == ".pragma":
                i += 1
        func.end = toks[i - 1].end
        return func, i

    def param_list(self, toks: list[Token], i: int, func: Function) -> tuple[list, int]:
        open_ = toks[i]
        i += 1
        params = []
        n = len(toks)
        while i < n and toks[i].text != ")":
            j, depth = i, 0
            while j < n and not (depth == 0 and toks[j].text in (",", ")")):
                if toks[j].text in ("(", "["):
                    depth += 1
                elif toks[j].text in (")", "]"):
                    depth -= 1
                j += 1
            if j >= n:
                raise _Err("unclosed `(` of the parameter list", open_.start, open_.end)
            if j == i:
                what = "`,` with no parameter before it" if toks[j].text == "," else \
                    "a trailing `,` in the parameter list"
                at = toks[j] if toks[j].text == "," else toks[j - 1]
                raise _Err(what, at.start, at.end, help="remove the `,`")
            var = self._variable(toks[i:j], toks[i].start, toks[j - 1].end, param=True)
            if var is not None:
                var.function = func
                params.append(var)
            i = j + 1 if toks[j].text == "," else j
        if i >= n:
            raise _Err("unclosed `(` of the parameter list", open_.start, open_.end)
        if toks[i - 1].text == ",":  # ptxas: syntax error
            raise _Err("a trailing `,` in the parameter list", toks[i - 1].start, toks[i - 1].end,
                       help="remove the `,`")
        return params, i + 1

    def _attribute(self, toks, i):
        """`.attribute(.managed)` / `.attribute(.unified(u1, u2))` -> its text, e.g. ".unified(1, 2)"."""
        j, depth = i + 1, 0
        while j < len(toks):
            x = toks[j].text
            if x == "(":
                depth += 1
            elif x == ")":
                depth -= 1
                if depth == 0:
                    j += 1
                    break
            j += 1
        if depth != 0 or j <= i + 2:
            raise _Err("malformed `.attribute(...)`", toks[i].start, toks[i].end)
        return j, [join_tokens(toks[i + 2:j - 1])]

    def declaration(self, toks: list[Token], i: int, end: int) -> int:
        """`[linkage] .space [.align N] [.v2] .type name[<N>][dims] [= init] {, name ...};`"""
        # split on top-level commas into declarators sharing the prefix
        n = len(toks)
        j, depth = i, 0
        while j < n and toks[j].kind == "dir":
            j += 1
        while j < n and toks[j].kind == "num" and j > i and toks[j - 1].text == ".align":
            j += 1
            while j < n and toks[j].kind == "dir":
                j += 1
        prefix = toks[i:j]
        decls, k, depth = [], j, 0
        while k <= n:
            if k == n or (depth == 0 and toks[k].text in (",", ";")):
                if k > j:
                    decls.append(toks[j:k])
                if k < n and toks[k].text == ";":
                    k += 1
                    break
                j = k + 1
                if k == n:
                    break
            elif toks[k].text in ("{", "(", "["):
                depth += 1
            elif toks[k].text in ("}", ")", "]"):
                depth -= 1
            k += 1
        if not decls:
            raise _Err("expected a name in the declaration", prefix[-1].start, prefix[-1].end)
        for d in decls:
            var = self._variable(prefix + d, prefix[0].start, d[-1].end)
            if var is None:
                continue
            var.end = end
            scope = self.stack[-1][1]
            func = self.stack[-1][2]
            var.function = func
            if var.range_count is not None:
                scope.ranges[var.name] = var
            else:
                prev = scope.names.get(var.name)
                if prev is not None:
                    if not (getattr(prev, "linkage", None) == ".extern" or var.linkage == ".extern"):
                        syntax_error(self.m, var.name_start, var.name_start + len(var.name),
                                     f"`{var.name}` is declared twice in the same scope", code="PTX0012")
                    elif getattr(prev, "linkage", None) == ".extern" and var.linkage is None and func is None:
                        # ptxas: "'.extern' variable cannot be resolved by a '.static'"
                        syntax_error(self.m, var.name_start, var.name_start + len(var.name),
                                     f"`.extern` variable `{var.name}` is defined here without `.visible` "
                                     "(a definition local to the module cannot resolve it)", code="PTX0013",
                                     help="make the definition `.visible` (or `.weak`), or drop the "
                                     "`.extern` declaration")
                    scope.first_declared.setdefault(var.name, prev.start)
                scope.names[var.name] = var
            self._add(var)
        return k

    def _variable(self, toks: list[Token], start: int, end: int, param: bool = False) -> Variable | None:
        i, n = 0, len(toks)
        linkage = None
        space = None
        align = None
        vector = None
        vtype = None
        attrs, ptr = [], None
        while i < n and toks[i].kind == "dir":
            x = toks[i].text
            if x in _LINKAGE:
                linkage = x
            elif x in _SPACES and space is None:
                space = x
            elif x == ".align":
                if i + 1 >= n or toks[i + 1].kind != "num":
                    raise _Err("`.align` needs a number", toks[i].start, toks[i].end)
                align = int(toks[i + 1].text, 0) if not toks[i + 1].text.startswith("0") or toks[i + 1].text == "0" else _int(toks[i + 1].text)
                i += 1
                if ptr is not None:
                    ptr += f".align {align}"
                    align = None
            elif x == ".attribute":
                i, a = self._attribute(toks, i)
                attrs += a
                continue
            elif x == ".ptr":
                ptr = ""
            elif x in (".v2", ".v4", ".v8"):
                vector = x
            elif ptr is not None and x in (".global", ".shared", ".const", ".local"):
                ptr += x
            elif vtype is None:
                vtype = x
            else:
                raise _Err(f"unexpected `{x}` in declaration", toks[i].start, toks[i].end)
            i += 1
        if space is None:
            raise _Err("a declaration needs a state space (`.reg`, `.global`, `.param`, ...)",
                       toks[0].start, toks[0].end)
        if vtype is None:
            if param and i < n and toks[i].kind == "word" and toks[i].text == "_":
                vtype = ""
            else:
                at = toks[i] if i < n else toks[-1]
                raise _Err("expected a type in the declaration", at.start, at.end)
        if i >= n or toks[i].kind != "word":
            at = toks[i] if i < n else toks[-1]
            raise _Err("expected a name in the declaration", at.start, at.end)
        name_tok = toks[i]
        i += 1
        var = Variable(name_tok.text, space, vtype, start, end, vector=vector, align=align,
                       linkage=linkage, attributes=attrs, ptr=ptr, name_start=name_tok.start,
                       module=self.m)
        if i < n and toks[i].text == "<":
            if i + 2 >= n or toks[i + 1].kind != "num" or toks[i + 2].text != ">":
                raise _Err("a parameterized name is written `name<N>`", toks[i].start, toks[i].end)
            var.range_count = _int(toks[i + 1].text)
            i += 3
        while i < n and toks[i].text == "[":
            if i + 1 < n and toks[i + 1].text == "]":
                var.dims.append(None)
                i += 2
                continue
            p = ExprParser(toks, i + 1, end)
            node = p.parse(0)
            size = fold(node)
            if p.i >= n or toks[p.i].text != "]":
                at = toks[p.i] if p.i < n else toks[-1]
                raise _Err("expected `]` after the array size", at.start, at.end)
            if not isinstance(size, int) or size < 0:
                raise _Err("array size must be a non-negative integer constant", node.start, node.end)
            var.dims.append(size)
            i = p.i + 1
        if i < n and toks[i].text == "=":
            var.init = self._initializer(toks, i + 1)
            i = n
        if i < n:
            raise _Err(f"unexpected `{toks[i].text}` in declaration", toks[i].start, toks[i].end)
        return var

    def _initializer(self, toks: list[Token], i: int):
        """Nested brace lists of constant expressions; names stay as address expressions."""
        def item(i):
            t = toks[i] if i < len(toks) else None
            if t is None:
                raise _Err("expected an initializer", toks[-1].start, toks[-1].end)
            if t.text == "{":
                out, i = [], i + 1
                while i < len(toks) and toks[i].text != "}":
                    v, i = item(i)
                    out.append(v)
                    if i < len(toks) and toks[i].text == ",":
                        i += 1
                if i >= len(toks):
                    raise _Err("unclosed `{` in initializer", t.start, t.end)
                return out, i + 1
            if t.kind == "word" and i + 1 < len(toks) and toks[i + 1].text == "(" and t.text in (
                    "generic",):
                p = ExprParser(toks, i + 2, toks[-1].end)
                inner = p.parse(0)
                if p.i >= len(toks) or toks[p.i].text != ")":
                    raise _Err("expected `)`", t.start, t.end)
                j = p.i + 1
                if j < len(toks) and toks[j].text in ("+", "-"):
                    # generic(var)+4 is the generic address of var+4
                    q = ExprParser(toks, j + 1, toks[-1].end)
                    off = q.parse(8)
                    inner = Expr(toks[j].text, [inner, off], inner.start, off.end)
                    j = q.i
                return Expr("generic", [inner], t.start, toks[j - 1].end), j
            if t.kind == "num" and i + 1 < len(toks) and toks[i + 1].text == "(" and t.text.lower().startswith("0xff"):
                p = ExprParser(toks, i + 2, toks[-1].end)
                inner = p.parse(0)
                if p.i >= len(toks) or toks[p.i].text != ")":
                    raise _Err("expected `)`", t.start, t.end)
                mask = Int(_int(t.text), t.text, t.start, t.end)
                return Expr("mask", [mask, inner], t.start, toks[p.i].end), p.i + 1
            p = ExprParser(toks, i, toks[-1].end)
            node = p.parse(0)
            return node, p.i
        v, i = item(i)
        if i < len(toks):
            raise _Err(f"unexpected `{toks[i].text}` after the initializer", toks[i].start, toks[i].end)
        return v


def _labels_and_line_directives(text: str) -> bool:
    """Is `text` only labels and line-ended directives (`.loc`, `.file`), one per line?"""
    pos = 0
    while (m := _LABELS.match(text, pos)) is not None:
        pos = m.end()
    rest = text[pos:].lstrip()
    if rest and rest[0] not in ".@#":
        return False  # an instruction (`mov.b32 {...`): no line directive starts so (_EOL_RE)
    return all(_EOL_RE.match(line) is not None for line in
               (x.strip() for x in text[pos:].split("\n")) if line)


def _int(text: str) -> int:
    t = text.rstrip("U")
    if t.lower().startswith("0x"):
        return int(t, 16)
    if t.lower().startswith("0b"):
        return int(t[2:], 2)
    if len(t) > 1 and t.startswith("0"):
        return int(t, 8)
    return int(t)


class _Err(Exception):
    def __init__(self, msg: str, start: int, end: int, help: str = ""):
        super().__init__(msg)
        self.msg, self.start, self.end, self.help = msg, start, end, help
