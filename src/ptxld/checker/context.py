"""What every rule function needs: the module, its header facts, name lookup, and `emit`."""
from __future__ import annotations

from ..diagnostics import Diagnostic, Label
from ..ptx.nodes import Block, Name, ParenList
from ..spec.types import kind_bits
from ..spec.targets import parse_target
from .registry import CHECKS, RULES, checks_for


_UNBUILT = object()


class Checker:
    __slots__ = ("module", "strict", "version", "target", "sm", "address_size", "diags", "source",
                 "_labels", "_call_returns", "addr32", "known", "first", "_lookups", "_tables", "clean_ld",
                 "clean_opcodes", "clean_operands", "name_classes", "fast_plans", "checks", "clean_plain_ld",
                 "enabled", "quiet_opcodes", "formless_opcodes")

    def __init__(self, module, strict: bool, enabled: frozenset | None = None):
        """`enabled`: the codes to check (None: all); only functions that can report one run."""
        self.module = module
        self.strict = strict
        self.enabled = enabled
        self.checks = _checks(enabled)
        self.source = module.source
        self.version = module.version
        t = parse_target(module.target) if module.target else None
        self.target = t
        self.sm = t.number if t else None
        self.address_size = module.address_size
        self.diags: list[Diagnostic] = []
        self._labels: dict = {}
        self._call_returns: dict = {}
        self._lookups: dict = {}
        self._tables: dict = {}  # scope -> Scope.declarations() (None: read by Scope.find)
        self.known: dict = {}  # scope -> names declared before its first instruction (PTX0301 cache)
        self.first: dict = {}  # scope -> offset of its first instruction
        self.addr32 = 0  # 32-bit global/generic addresses seen (PTX0308)
        self.clean_ld: set = set()  # ld opcodes whose qualifier rules and gates found nothing
        # (opcode, destination type, address register type) of `ld %r, [%rd+imm]` loads that
        # every ld rule passed (ld.py `plain_ld`)
        self.clean_plain_ld: set = set()
        # opcodes whose record rules found nothing, and (opcode, operand signature) pairs whose
        # operands passed: real code repeats both thousands of times
        self.clean_opcodes: set = set()
        self.clean_operands: set = set()
        self.formless_opcodes: set = set()  # opcodes of records without forms whose gates passed
        # opcodes on whose first instruction every INSTRUCTION check found nothing: the checks
        # registered `opcode_only` do not run on its others
        self.quiet_opcodes: set = set()
        self.fast_plans: dict = {}    # opcode (clean) -> its operand plan (records.py)
        self.name_classes: dict = {}  # scope -> {operand piece: what an operand signature records}

    # ---------------------------------------------------------------- reporting
    def emit(self, code: str, start: int, end: int, message: str, *, label: str = "",
             secondary: list | None = None, notes: list | None = None, help: str = "",
             fix: str | None = None, severity: str | None = None) -> Diagnostic:
        rule = RULES[code]
        line, col = self.source.position(start)
        end = max(end, start + 1)
        end_line, end_col = self.source.position(end)
        d = Diagnostic(code, severity or rule.severity_for(self.strict), message, line, col, start, end,
                       label=label, secondary=[Label(s, e, m) for s, e, m in (secondary or ())],
                       notes=list(notes or ()), help=help, fix=fix, section=rule.section,
                       filename=self.source.filename, end_line=end_line, end_column=end_col)
        if rule.isa_only:
            d.notes.append("ptxas 13.0 accepts this; the PTX ISA text does not"
                           + ("" if self.strict else " (an error with --strict)"))
        self.diags.append(d)
        return d

    # ---------------------------------------------------------------- names and types
    def lookup_in(self, scope, name: str):
        """The declaration `name` resolves to in `scope` (memoised like `lookup`)."""
        cache = self._lookups.get(scope)
        if cache is None:
            cache = self._new_memo(scope)
        v = cache.get(name, _UNBUILT)
        if v is _UNBUILT:
            found = self.find(scope, name)
            v = cache[name] = found[1] if found is not None else None
        return v

    def lookups_of(self, scope) -> dict:
        """The memo of `lookup_in` for one scope (name -> declaration or None), for callers that
        look up many names of one scope."""
        cache = self._lookups.get(scope)
        if cache is None:
            cache = self._new_memo(scope)
        return cache

    def _new_memo(self, scope) -> dict:
        """A scope's memo, started with the names the scope itself declares: what `find` returns
        first for them, and most look-ups are of a function's own registers (one table built at
        C speed instead of a walk of the scopes per register)."""
        table = self._tables.get(scope, _UNBUILT)
        if table is _UNBUILT:
            table = self._tables[scope] = scope.declarations()
        cache = self._lookups[scope] = {} if table is None else scope.declared()
        return cache

    def lookup(self, ins, name: str):
        """The declaration `name` resolves to from `ins` (memoised per scope: registers repeat)."""
        return self.lookup_in(ins.scope or ins.module.scope, name)

    def find(self, scope, name: str, before: int | None = None):
        """`Scope.find`, read off each scope's table of declarations, built once per check:
        the record rules, the `ld` rules and PTX0301 look up thousands of (scope, register)
        pairs, and a table answers each in one dict look-up a scope."""
        tables = self._tables
        s = scope
        while s is not None:
            table = tables.get(s, _UNBUILT)
            if table is _UNBUILT:
                table = tables[s] = s.declarations()
            if table is None:
                return s.find(name, before)   # the rest of the walk, from this scope up
            hit = table.get(name)
            if hit is not None and (before is None or hit[0] < before):
                return s, hit[1]
            s = s.parent
        return None

    def labels_of(self, function) -> set:
        """Every label defined anywhere in a function body (labels are function-scoped)."""
        key = id(function)
        got = self._labels.get(key)
        if got is None:
            got = set()
            if function is not None and function.body is not None:
                stack = [function.body]
                while stack:
                    b = stack.pop()
                    if b.scope is not None:
                        got.update(b.scope.labels)
                    stack.extend(it for it in b.items if it.__class__ is Block)
            got.update(self.module.scope.labels)
            self._labels[key] = got
        return got

    def call_returns_of(self, function) -> set:
        """Names bound to call return values (`call (rv), f, ...`) in a function."""
        if not self._call_returns:  # one pass over the module, on first use
            self._call_returns[None] = set()
            for ins in self.module.instructions:
                # the opcode's first letters first: decoding every instruction's opcode costs more
                if ins.opcode.startswith("call") and ins.decoded.mnemonic == "call":
                    ops = ins.operands
                    if ops and isinstance(ops[0], ParenList):
                        self._call_returns.setdefault(id(ins.function), set()).update(
                            x.name for x in ops[0].items if isinstance(x, Name))
        return self._call_returns.get(id(function), set())


_CHECKS_FOR: dict = {}


def _checks(enabled: frozenset | None) -> dict:
    """trigger -> the checking functions to run, for one set of enabled codes (memoised)."""
    got = _CHECKS_FOR.get(enabled)
    if got is None:
        got = _CHECKS_FOR[enabled] = {t: checks_for(t, enabled) for t in CHECKS}
    return got


def reg_type(var) -> tuple[str, int] | None:
    """(kind, bits) of a register variable's element type, or None if it is not a typed `.reg`."""
    if var is None or getattr(var, "space", None) != ".reg":
        return None
    return kind_bits(var.type)


def fmt_version(v) -> str:
    return f"{v[0]}.{v[1]}"
