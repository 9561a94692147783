"""The checker: every rule, per PTX version and target.

`check_source(text)` parses the module, then runs one linear pass over the checking functions
the rule modules registered (`registry.rule`), by trigger: the module's once, then per
instruction those of its kind (unknown name, guard, `ld` opcode and operands, store, ISA record,
`wmma.load`), then the declared-name rules a scope at a time. Only functions that can report an
enabled code run (`select`/`ignore`); suppression comments are applied last (`suppress.py`).
"""
from __future__ import annotations

from ..diagnostics import Diagnostic
from ..ptx.loads import LoadModel, WmmaLoadModel
from ..ptx.nodes import Module
from ..ptx.parser import no_gc, parse, parse_body
from ..ptx.source import Source
from ..ptx.syntax import non_ascii_error, operand_errors
# the rule modules: each registers its checking functions and their rules on import
from . import header, names, ld, gates, operands, records, calls, isa_text, wmma, suppress  # noqa: F401 (in this order)
from . import opcache
from .context import Checker
from .ld import plain_ld
from .operands import _STORE_LIKE
from .records import has_record_rules
from .registry import (NAMES_CHECKED, RULES, Rule, Trigger, all_rules, applicable, names_only,
                       without_opcode_only)
from .selection import SelectionError, enabled_codes, is_enabled
from .suppress import apply_suppressions, codes_to_run
from ..spec.decode import decode
from ..spec.opcodes import MNEMONICS, SUBNAMES

__all__ = ["check_source", "check_module", "RULES", "Rule", "all_rules", "SelectionError"]


def check_source(source: str, *, filename: str = "<string>", strict: bool = False,
                 select=None, ignore=None) -> list[Diagnostic]:
    """Every diagnostic for a PTX module (parser and checker), sorted by position. Never raises
    on bad PTX. `select`/`ignore`: rule codes or prefixes (`PTX02`), as `ptxld check --select`
    reads them (a `SelectionError` names one that selects no rule); `// ptxld: ignore[...]`
    comments in the text silence what they name."""
    enabled = enabled_codes([(select, ignore)])
    diags = diagnose(source, filename=filename, strict=strict, enabled=codes_to_run(source, enabled))
    return capped(apply_suppressions(source, diags, enabled, filename), filename)


def diagnose(source: str, *, filename: str = "<string>", strict: bool = False,
             enabled: frozenset | None = None) -> list[Diagnostic]:
    """`check_source` without the cap on the number of diagnostics and the suppression
    comments; `enabled`: the codes to report (None: all)."""
    # one pause of the cyclic collector for parsing and checking together: between the two,
    # its first pass would walk the whole fresh tree (~30 ms on a 40k-line module)
    with no_gc():
        module = _parsed(source, filename, None)
        if isinstance(module, list):
            return module
        return check_module(module, strict=strict, cap=False, enabled=enabled)


def _parsed(source: str, filename: str, skip_bodies) -> Module | list[Diagnostic]:
    """The module, or the one diagnostic that stops the check before any rule runs."""
    if not source.isascii():
        # ptxas stops at the first non-ASCII character: one error, not a cascade after it
        return [non_ascii_error(Source(source, filename))]
    try:
        # operands are parsed (and checked) as the rules need them
        return parse(source, filename=filename, eager=False, skip_bodies=skip_bodies)
    except RecursionError:
        return [Diagnostic("PTX0006", "error", "input nests too deeply to check", 1, 1, 0, 1,
                           filename=filename)]
    except Exception as e:  # a parser bug: still no exception for the caller
        return [Diagnostic("PTX0000", "error", f"internal error in the parser: {type(e).__name__}: {e}",
                           1, 1, 0, 1, filename=filename,
                           notes=["this is a bug in ptxld; please report it with the input"])]


def check_module(module, *, strict: bool = False, cap: bool = True,
                 enabled: frozenset | None = None) -> list[Diagnostic]:
    c = Checker(module, strict, enabled)
    return _checked(c, _run, cap, enabled)


def check_shared(source: str, bodies: list[tuple[int, int]], take, *, filename: str = "<string>",
                 strict: bool = False, enabled: frozenset | None = None) -> list[Diagnostic]:
    """`diagnose` for one of several processes sharing a module: the module is parsed with the
    function `bodies` ((start, end) inside each `{ }`) left out, then each body that `take(i)`
    hands to this process (True: nobody has it yet) is parsed and checked before the next is
    taken, so the processes share the bodies by the time they take to check, not just to parse.
    The module's own rules run last, on what this process parsed."""
    with no_gc():
        left_out = _LeftOut(bodies)
        module = _parsed(source, filename, left_out)
        if isinstance(module, list):
            return module
        index = {start: i for i, (start, _) in enumerate(bodies)}
        owner = {f.body.start + 1: f for f in module.items
                 if getattr(f, "kind", None) == "function" and f.body is not None}
        c = Checker(module, strict, enabled)

        def run(c: Checker) -> None:
            p = _Pass(c)
            p.instructions(module.instructions)  # those outside the bodies left out: every process's
            p.names()
            for start in left_out.starts:
                if not take(index[start]):
                    continue
                k = len(module.instructions)
                parse_body(module, owner[start], start - 1, left_out[start])
                p.instructions(module.instructions[k:])
                p.names()
            for check in c.checks[Trigger.MODULE]:
                check(c)

        return _checked(c, run, False, enabled)


class _LeftOut(dict):
    """`parse(skip_bodies=...)` that records the bodies the parser left out, in text order."""

    def __init__(self, bodies: list[tuple[int, int]]):
        super().__init__(bodies)
        self.starts: list[int] = []

    def get(self, start, default=None):
        end = dict.get(self, start, default)
        if end is not None:
            self.starts.append(start)
        return end


def _checked(c: Checker, run, cap: bool, enabled: frozenset | None) -> list[Diagnostic]:
    module = c.module
    opcache.give_verdicts(c)  # what passed in earlier runs of the command line (see opcache.py)
    try:
        with no_gc():
            run(c)
            opcache.keep_verdicts(c)
    except RecursionError:
        c.diags.append(Diagnostic("PTX0006", "error", "input nests too deeply to check", 1, 1, 0, 1,
                                  filename=module.source.filename))
    except Exception as e:  # a checker bug must not take the caller down; tests assert it never happens
        c.diags.append(Diagnostic("PTX0000", "error", f"internal error in the checker: {type(e).__name__}: {e}",
                                  1, 1, 0, 1, filename=module.source.filename,
                                  notes=["this is a bug in ptxld; please report it with the input"]))
    out = module.diagnostics + operand_errors(module) + c.diags
    if enabled is not None:
        out = [d for d in out if is_enabled(d.code, enabled)]
    out.sort(key=Diagnostic.sort_key)
    return capped(out, module.source.filename) if cap else out


MAX_DIAGNOSTICS = 500


def capped(diags: list[Diagnostic], filename: str) -> list[Diagnostic]:
    """Garbage input can give an error per statement: report the first MAX_DIAGNOSTICS."""
    if len(diags) <= MAX_DIAGNOSTICS:
        return diags
    kept = diags[:MAX_DIAGNOSTICS]
    last = kept[-1]
    errors = sum(d.severity == "error" for d in diags[MAX_DIAGNOSTICS:])
    kept.append(Diagnostic("PTX0006", "error" if errors else "note",
                           f"{len(diags) - MAX_DIAGNOSTICS} more diagnostics ({errors} errors) not shown",
                           last.line, last.column, last.start, last.end, filename=filename))
    return kept


# what the checker runs on an instruction, by its opcode string (worked out once per opcode)
_UNKNOWN, _PLAIN, _LD, _STORE, _RECORD, _WMMA_LOAD, _FAMILY, _STORE_RECORD = range(8)
_KIND_OF: dict[str, int] = {}


def _kind(opcode: str) -> int:
    k = _KIND_OF.get(opcode)
    if k is None:
        k = opcache.install(opcode)  # worked out by an earlier run (the command line's cache)
        if k is None:
            k = _work_out_kind(opcode)
            opcache.note(opcode, k)
        if len(_KIND_OF) >= 8192:  # garbage input can spell endless opcodes
            _KIND_OF.clear()
        _KIND_OF[opcode] = k
    return k


def _work_out_kind(opcode: str) -> int:
    d = decode(opcode)
    mn = d.mnemonic
    if mn not in MNEMONICS:
        return _UNKNOWN
    if mn == "ld":
        return _LD
    if mn in _STORE_LIKE:
        return _STORE_RECORD if has_record_rules(d) else _STORE
    if d.name == "wmma.load":
        return _WMMA_LOAD
    if has_record_rules(d):
        return _RECORD
    if d.spec is None and mn in SUBNAMES:
        return _FAMILY
    return _PLAIN


def _run(c: Checker) -> None:
    for check in c.checks[Trigger.MODULE]:
        check(c)
    p = _Pass(c)
    p.instructions(c.module.instructions)
    p.names()


class _Pass:
    """The per-instruction rules over a module's instructions, given in one batch or several
    (`check_shared`: a function body at a time), then the declared-name rules of the scopes a
    batch met."""

    def __init__(self, c: Checker):
        self.c = c
        # every instruction's operands are checked for declared names together, by scope
        self.together: dict = {}
        self.record_for: dict = {}  # opcode -> the INSTRUCTION checks that run on its record
        # an instruction whose operand names a record rule checked leaves the names pass
        self.names_checked_leave = names_only(c.checks[Trigger.NAMES])

    def instructions(self, batch) -> None:  # noqa: C901 - one branch per kind of instruction
        c = self.c
        run = c.checks
        unknown, guard, ld_opcode, ld_operands = (run[Trigger.UNKNOWN_INSTRUCTION], run[Trigger.GUARD],
                                                  run[Trigger.LD_OPCODE], run[Trigger.LD])
        store, record, wmma_load = run[Trigger.STORE], run[Trigger.INSTRUCTION], run[Trigger.WMMA_LOAD]
        family = run[Trigger.FAMILY]
        clean_ld, clean_plain_ld = c.clean_ld, c.clean_plain_ld
        together = self.together
        kind_of = _KIND_OF
        record_for = self.record_for
        names_checked_leave = self.names_checked_leave
        for ins in batch:
            kind = kind_of.get(ins.opcode)
            if kind is None:
                kind = _kind(ins.opcode)
            if kind == _UNKNOWN:
                for check in unknown:
                    check(c, ins)
                continue
            scope = ins.scope or ins.module.scope
            group = together.get(scope)
            if group is None:
                group = together[scope] = []
                c.first[scope] = ins.start
            group.append(ins)
            if ins.guard is not None:
                for check in guard:
                    check(c, ins)
            if kind == _RECORD or kind == _STORE_RECORD:  # the commonest kind first
                if kind == _STORE_RECORD:
                    for check in store:
                        check(c, ins)
                checks = record_for.get(ins.opcode)
                first_of_opcode = checks is None
                if first_of_opcode:
                    checks = applicable(record, ins.decoded.name)
                    if ins.opcode in c.quiet_opcodes:  # an earlier run's verdict (opcache)
                        checks = record_for[ins.opcode] = without_opcode_only(checks)
                        first_of_opcode = False
                    before = len(c.diags)
                named = False
                for check in checks:
                    if check(c, ins) is NAMES_CHECKED:
                        named = True
                if first_of_opcode:
                    # the opcode-only rules found nothing: nothing on this opcode's other instructions
                    if len(c.diags) == before:
                        c.quiet_opcodes.add(ins.opcode)
                        record_for[ins.opcode] = without_opcode_only(checks)
                    else:
                        record_for[ins.opcode] = checks
                if named and names_checked_leave:
                    group.pop()  # this instruction, appended above: nothing left for the names pass
            elif kind == _PLAIN:
                continue
            elif kind == _LD:
                plain = plain_ld(c, ins, c.first[scope])
                if plain is not None:
                    plain, named = plain
                    if named and names_checked_leave:
                        group.pop()  # this load, appended above: its names need no more checking
                    if plain in clean_plain_ld:
                        continue
                before_ld = len(c.diags)
                m = ins.load
                if isinstance(m, LoadModel):
                    op = m.facts
                    unified = m.address is not None and m.address.unified
                    if unified or op not in clean_ld:
                        before = len(c.diags)
                        for check in ld_opcode:
                            check(c, ins, m)
                        # These rules read nothing but the opcode, except under `.L2::evict_*` and
                        # `.v8` (they look at the destinations) and on a `.unified` address: an
                        # opcode that passed them once passes them everywhere in this module.
                        if (len(c.diags) == before and not unified and op.vec != ".v8"
                                and "l2_evict" not in m.quals):
                            clean_ld.add(op)
                    for check in ld_operands:
                        check(c, ins, m)
                    if plain is not None and len(c.diags) == before_ld and op in clean_ld:
                        clean_plain_ld.add(plain)
            elif kind == _STORE:
                for check in store:
                    check(c, ins)
            elif kind == _FAMILY:
                for check in family:
                    check(c, ins, ins.decoded)
            elif kind == _WMMA_LOAD:
                m = ins.load
                if isinstance(m, WmmaLoadModel):
                    for check in wmma_load:
                        check(c, ins, m)

    def names(self) -> None:
        """The declared-name rules on the scopes met since the last call."""
        c = self.c
        for check in c.checks[Trigger.NAMES]:
            for scope, group in self.together.items():
                if group:  # empty where every instruction's names were checked already
                    check(c, scope, group)
        self.together = {}
