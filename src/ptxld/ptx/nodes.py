"""The PTX module model: every node keeps its source span as character offsets.

Line and column are derived on demand from the module's `Source`, so building the tree costs no
position arithmetic. Instruction operands are parsed on first use (see `Instruction.operands`).
"""
from __future__ import annotations

TYPE_CHECKING = False  # (typing is not imported at run time: 3 ms of every start)

from ..slotted import Node, Value
from ..spec.decode import Decoded, decode
from .loads import model_of
from .operands import parse_operands
# the operand nodes, re-exported: code that walks a module finds every node class here
from .terms import ELEMENT, Address, Expr, Float, Int, Name, Operand, ParenList, PredPair, Sink, Vector

if TYPE_CHECKING:
    from typing import Any

    from .source import Source

__all__ = ["ELEMENT", "Address", "Expr", "Float", "Int", "Name", "Operand", "ParenList", "PredPair", "Sink",
           "Vector", "Guard", "LabelDef", "Instruction", "Variable", "Directive", "Block", "Scope",
           "Function", "Module"]


# ---------------------------------------------------------------- statements

class Guard(Value):
    __slots__ = FIELDS = ("negated", "name", "start", "end")

    def __init__(self, negated: bool, name: Name, start: int, end: int):
        self.negated, self.name, self.start, self.end = negated, name, start, end


class LabelDef(Value):
    __slots__ = FIELDS = ("name", "start", "end")

    def __init__(self, name: str, start: int, end: int):
        self.name, self.start, self.end = name, start, end


class _Located(Node):
    """Line and column (1-based) of a node's `start` in its module's source."""
    __slots__ = ()

    @property
    def line(self) -> int:
        return self.module.source.position(self.start)[0]

    @property
    def column(self) -> int:
        return self.module.source.position(self.start)[1]


class Instruction(_Located):
    __slots__ = FIELDS = ("opcode", "start", "end", "opcode_start", "operand_start", "operand_text",
                          "guard", "module", "function", "scope", "labels", "_operands", "_load",
                          "operand_error")
    kind = "instruction"

    def __init__(self, opcode: str, start: int, end: int, opcode_start: int, operand_start: int,
                 operand_text: str, guard: Guard | None, module: "Module", function: "Function | None" = None,
                 scope: "Scope | None" = None, labels: list | None = None, _operands: list | None = None,
                 _load: Any = False, operand_error: Any = None):
        self.opcode = opcode                  # dotted mnemonic as written: "ld.global.nc.v4.f32"
        self.start, self.end = start, end     # guard or opcode start; after the ';'
        self.opcode_start, self.operand_start, self.operand_text = opcode_start, operand_start, operand_text
        self.guard, self.module, self.function, self.scope = guard, module, function, scope
        self.labels = [] if labels is None else labels
        self._operands = _operands
        self._load = _load                    # cached LoadModel / WmmaLoadModel / None
        self.operand_error = operand_error    # the Diagnostic of operands that do not parse

    def __repr__(self) -> str:  # the fields would print the whole module
        return f"Instruction({self.opcode!r} {self.operand_text.strip()!r} at {self.start})"

    @property
    def decoded(self) -> Decoded:
        """The opcode read against the instruction records (`ptxld.spec.decode`)."""
        return decode(self.opcode)

    @property
    def mnemonic(self) -> str:
        return self.decoded.mnemonic

    @property
    def modifiers(self) -> list[tuple[str, int, int]]:
        """The modifiers after the instruction's name, with their spans in the module text:
        [(".global", start, end), ...] (`wmma.load.a...`: from `.a` on)."""
        base = self.opcode_start
        return [(t, s + base, e + base) for t, s, e, _ in self.decoded.modifiers]

    @property
    def operands(self) -> list:
        ops = self._operands
        if ops is None:
            ops, self.operand_error = parse_operands(self)
            self._operands = ops
        return ops

    @property
    def load(self):
        """The typed model of a load-family instruction (ld, ld.global.nc, wmma.load), else None."""
        m = self._load
        if m is False:
            m = self._load = model_of(self)
        return m

    @property
    def text(self) -> str:
        return self.module.source.text[self.start:self.end]


class Variable(_Located):
    """A declaration: `.reg`, `.global`, `.shared`, `.param`, ... (also function parameters)."""
    __slots__ = FIELDS = ("name", "space", "type", "start", "end", "vector", "align", "dims",
                          "range_count", "init", "linkage", "attributes", "ptr", "name_start", "module",
                          "function")
    kind = "variable"

    def __init__(self, name: str, space: str, type: str, start: int, end: int, vector: str | None = None,
                 align: int | None = None, dims: list | None = None, range_count: int | None = None,
                 init: Any = None, linkage: str | None = None, attributes: list | None = None,
                 ptr: str | None = None, name_start: int = 0, module: "Module | None" = None,
                 function: "Function | None" = None):
        self.name = name
        self.space = space                    # ".reg", ".global", ".param", ...
        self.type = type                      # ".b32", ".u64", ".pred", ".texref", ...
        self.start, self.end = start, end
        self.vector = vector                  # ".v2" / ".v4"
        self.align = align
        self.dims = [] if dims is None else dims                        # array dimensions (None = unsized)
        self.range_count = range_count        # `%r<100>` declares %r0..%r99
        self.init = init
        self.linkage = linkage                # .extern / .visible / .weak / .common
        self.attributes = [] if attributes is None else attributes      # e.g. [".managed"], [".unified"]
        self.ptr = ptr                        # `.ptr.global.align 16` on kernel params
        self.name_start, self.module, self.function = name_start, module, function

    def __repr__(self) -> str:
        return f"Variable({self.space} {self.type} {self.name!r} at {self.start})"



class Directive(Node):
    """Any other directive statement: .version, .target, .loc, .file, .pragma, .maxntid, ..."""
    __slots__ = FIELDS = ("name", "args", "start", "end", "raw")
    kind = "directive"

    def __init__(self, name: str, args: list, start: int, end: int, raw: str = ""):
        self.name = name      # ".loc"
        self.args = args      # tokens or raw text
        self.start, self.end, self.raw = start, end, raw


class Block(Node):
    """A brace-scoped block: a function body or a nested `{ ... }` with its own declarations."""
    __slots__ = FIELDS = ("start", "end", "items", "scope")
    kind = "block"

    def __init__(self, start: int, end: int, items: list | None = None, scope: "Scope | None" = None):
        self.start, self.end = start, end
        self.items = [] if items is None else items   # Instruction | Variable | Directive | Block | LabelDef
        self.scope = scope

    def __repr__(self) -> str:
        return f"Block({self.start}..{self.end}, {len(self.items)} items)"


class Scope:
    """Names declared in a block, with `%r<N>` ranges; lookups fall back to the parent."""
    __slots__ = ("parent", "names", "ranges", "labels", "first_declared")

    def __init__(self, parent: "Scope | None" = None):
        self.parent = parent
        self.names: dict[str, Any] = {}
        self.ranges: dict[str, Variable] = {}
        self.labels: dict[str, LabelDef] = {}
        # where a name declared more than once (`.extern` then its definition) was first declared
        self.first_declared: dict[str, int] = {}

    def declared_at(self, name: str, decl) -> int:
        """Where `name` (whose declaration here is `decl`) is first declared in this scope."""
        return self.first_declared.get(name, decl.start) if self.first_declared else decl.start

    def lookup(self, name: str, before: int | None = None):
        found = self.find(name, before)
        return found[1] if found is not None else None

    def find(self, name: str, before: int | None = None):
        """(scope that declares `name`, its declaration), or None; with `before`, only
        declarations that start before that offset count (PTX names are declared before use)."""
        s = self
        while s is not None:
            v = s.names.get(name)
            if v is not None and (before is None or s.declared_at(name, v) < before):
                return s, v
            if s.ranges:
                stem = name.rstrip("0123456789")
                if stem != name:
                    r = s.ranges.get(stem)
                    if r is not None and (before is None or r.start < before):
                        digits = name[len(stem):]
                        if (digits == "0" or not digits.startswith("0")) and int(digits) < r.range_count:
                            return s, r
            s = s.parent
        return None

    def declarations(self) -> "dict | None":
        """Every name declared in this scope itself -> (the offset `find` compares with `before`,
        its declaration), `%r<N>` ranges spelled out: `find` one dict look-up a scope. None where
        `find` cannot be read off such a table (a range whose stem ends in a digit, which `find`
        never matches; a name both declared and inside a range here; a range too large to
        spell). For a finished scope only: the table is not updated."""
        table: dict = {}
        for stem, r in self.ranges.items():
            if stem[-1:].isdigit() or r.range_count > _SPELLED_RANGE_LIMIT:
                return None
            table.update(dict.fromkeys(spelled_range(r, stem), (r.start, r)))
        if self.names:
            if table and not table.keys().isdisjoint(self.names):
                return None
            first = self.first_declared
            for name, v in self.names.items():
                if v is not None:
                    table[name] = (first.get(name, v.start) if first else v.start, v)
        return table

    def declared(self) -> dict:
        """`declarations()` as name -> declaration (a new dict); only where that is not None."""
        out: dict = {}
        for stem, r in self.ranges.items():
            out.update(dict.fromkeys(spelled_range(r, stem), r))
        out.update((name, v) for name, v in self.names.items() if v is not None)
        return out


_SPELLED: dict = {}
_SPELLED_RANGE_LIMIT = 1 << 16


def spelled_range(var, stem: str) -> frozenset:
    """`%r0` ... `%rN-1` of a `%r<N>` declaration (the names `Scope.find` matches), remembered:
    every function of a module declares much the same ranges."""
    key = (stem, var.range_count)
    got = _SPELLED.get(key)
    if got is None:
        got = _SPELLED[key] = frozenset([f"{stem}{i}" for i in range(var.range_count)])
        if len(_SPELLED) > 4096:
            _SPELLED.clear()
    return got


class Function(Node):
    __slots__ = FIELDS = ("kind_", "name", "start", "end", "name_start", "linkage", "params", "returns",
                          "directives", "attributes", "noreturn", "body", "module")
    kind = "function"

    def __init__(self, kind_: str, name: str, start: int, end: int, name_start: int = 0,
                 linkage: str | None = None, params: list | None = None, returns: list | None = None,
                 directives: list | None = None, attributes: list | None = None, noreturn: bool = False,
                 body: Block | None = None, module: "Module | None" = None):
        self.kind_ = kind_                    # ".entry" or ".func"
        self.name, self.start, self.end, self.name_start, self.linkage = name, start, end, name_start, linkage
        self.params = [] if params is None else params                  # Variables
        self.returns = [] if returns is None else returns               # Variables (device functions)
        self.directives = [] if directives is None else directives      # perf directives / pragmas before the body
        self.attributes = [] if attributes is None else attributes
        self.noreturn, self.body, self.module = noreturn, body, module

    def __repr__(self) -> str:
        return f"Function({self.kind_} {self.name!r} at {self.start})"

    @property
    def is_entry(self) -> bool:
        return self.kind_ == ".entry"


class Module(Node):
    __slots__ = FIELDS = ("source", "items", "instructions", "functions", "diagnostics", "version", "targets",
                          "address_size", "scope", "comments")

    def __init__(self, source: "Source", items: list | None = None, instructions: list | None = None,
                 functions: dict | None = None, diagnostics: list | None = None,
                 version: tuple[int, int] | None = None, targets: list | None = None,
                 address_size: int | None = None, scope: Scope | None = None, comments: list | None = None):
        self.source = source
        self.items = [] if items is None else items                       # top level: Directive | Variable | Function
        self.instructions = [] if instructions is None else instructions  # every instruction, in source order
        self.functions = {} if functions is None else functions           # name -> Function (definition preferred)
        self.diagnostics = [] if diagnostics is None else diagnostics
        self.version = version
        self.targets = [] if targets is None else targets                 # ["sm_90a", "texmode_independent"]
        self.address_size = address_size
        self.scope = Scope() if scope is None else scope
        self.comments = [] if comments is None else comments  # (start, end) of comments between statements

    def __repr__(self) -> str:
        return f"Module({self.source.filename!r}, {len(self.instructions)} instructions)"

    @property
    def target(self) -> str | None:
        """The architecture named by `.target` (platform options excluded)."""
        for t in self.targets:
            if t.startswith(("sm_", "compute_")):
                return t
        return None

    @property
    def filename(self) -> str:
        return self.source.filename

    def loads(self):
        """Every load-family instruction with its typed model."""
        return [i for i in self.instructions if i.load is not None]


