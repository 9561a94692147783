"""The PTX module model: every node keeps its source span as character offsets.

Line and column are derived on demand from the module's `Source`, so building the tree costs no
position arithmetic. Instruction operands are parsed on first use (see `Instruction.operands`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..spec.decode import Decoded, decode
from .loads import model_of
from .operands import parse_operands
# the operand nodes, re-exported: code that walks a module finds every node class here
from .terms import ELEMENT, Address, Expr, Float, Int, Name, Operand, ParenList, PredPair, Sink, Vector

if TYPE_CHECKING:
    from .source import Source

__all__ = ["ELEMENT", "Address", "Expr", "Float", "Int", "Name", "Operand", "ParenList", "PredPair", "Sink",
           "Vector", "Guard", "LabelDef", "Instruction", "Variable", "Directive", "Block", "Scope",
           "Function", "Module"]


# ---------------------------------------------------------------- statements

@dataclass(slots=True)
class Guard:
    negated: bool
    name: Name
    start: int
    end: int


@dataclass(slots=True)
class LabelDef:
    name: str
    start: int
    end: int


class _Located:
    """Line and column (1-based) of a node's `start` in its module's source."""
    __slots__ = ()

    @property
    def line(self) -> int:
        return self.module.source.position(self.start)[0]

    @property
    def column(self) -> int:
        return self.module.source.position(self.start)[1]


@dataclass(slots=True, eq=False)
class Instruction(_Located):
    opcode: str                      # dotted mnemonic as written: "ld.global.nc.v4.f32"
    start: int                       # guard or opcode start
    end: int                         # after the ';'
    opcode_start: int
    operand_start: int
    operand_text: str
    guard: Guard | None
    module: "Module"
    function: "Function | None" = None
    scope: "Scope | None" = None
    labels: list = field(default_factory=list)
    _operands: list | None = None
    _load: Any = False               # cached LoadModel / WmmaLoadModel / None
    operand_error: Any = None        # the Diagnostic of operands that do not parse

    kind = "instruction"

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


@dataclass(slots=True, eq=False)
class Variable(_Located):
    """A declaration: `.reg`, `.global`, `.shared`, `.param`, ... (also function parameters)."""
    name: str
    space: str                        # ".reg", ".global", ".param", ...
    type: str                         # ".b32", ".u64", ".pred", ".texref", ...
    start: int
    end: int
    vector: str | None = None         # ".v2" / ".v4"
    align: int | None = None
    dims: list = field(default_factory=list)   # array dimensions (None = unsized)
    range_count: int | None = None    # `%r<100>` declares %r0..%r99
    init: Any = None
    linkage: str | None = None        # .extern / .visible / .weak / .common
    attributes: list = field(default_factory=list)   # e.g. [".managed"], [".unified"]
    ptr: str | None = None            # `.ptr.global.align 16` on kernel params
    name_start: int = 0
    module: "Module | None" = None
    function: "Function | None" = None

    kind = "variable"



@dataclass(slots=True, eq=False)
class Directive:
    """Any other directive statement: .version, .target, .loc, .file, .pragma, .maxntid, ..."""
    name: str                          # ".loc"
    args: list                         # tokens or raw text
    start: int
    end: int
    raw: str = ""
    kind = "directive"


@dataclass(slots=True, eq=False)
class Block:
    """A brace-scoped block: a function body or a nested `{ ... }` with its own declarations."""
    start: int
    end: int
    items: list = field(default_factory=list)    # Instruction | Variable | Directive | Block | LabelDef
    scope: "Scope | None" = None
    kind = "block"


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


@dataclass(slots=True, eq=False)
class Function:
    kind_: str                        # ".entry" or ".func"
    name: str
    start: int
    end: int
    name_start: int = 0
    linkage: str | None = None
    params: list = field(default_factory=list)        # Variables
    returns: list = field(default_factory=list)       # Variables (device functions)
    directives: list = field(default_factory=list)    # perf directives / pragmas before the body
    attributes: list = field(default_factory=list)
    noreturn: bool = False
    body: Block | None = None
    module: "Module | None" = None

    kind = "function"

    @property
    def is_entry(self) -> bool:
        return self.kind_ == ".entry"


@dataclass(slots=True, eq=False)
class Module:
    source: "Source"
    items: list = field(default_factory=list)          # top level: Directive | Variable | Function
    instructions: list = field(default_factory=list)   # every instruction, in source order
    functions: dict = field(default_factory=dict)      # name -> Function (definition preferred)
    diagnostics: list = field(default_factory=list)
    version: tuple[int, int] | None = None
    targets: list = field(default_factory=list)        # ["sm_90a", "texmode_independent"]
    address_size: int | None = None
    scope: Scope = field(default_factory=Scope)
    comments: list = field(default_factory=list)       # (start, end) of comments between statements

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


