"""The checker: every rule of the load instructions, per PTX version and target.

`check_source(text)` parses the module, then runs one linear pass: header rules once, the
instruction-name and declared-name rules on every instruction, and the deep rules only on loads.
"""
from __future__ import annotations

from ..diagnostics import Diagnostic
from ..ptx.loads import LoadModel, WmmaLoadModel
from ..ptx.parser import no_gc, parse
from ..ptx.syntax import operand_errors
from . import catalog  # noqa: F401 - registers the rules
from .context import Checker
from .header import check_header
from .ld import check_ld
from .names import check_guard, check_mnemonic, check_names_together
from .operands import _STORE_LIKE, check_store_address_width
from .records import check_family, check_instruction, has_record_rules
from .registry import RULES, Rule, all_rules
from ..spec.decode import decode
from ..spec.opcodes import MNEMONICS, SUBNAMES

__all__ = ["check_source", "check_module", "RULES", "Rule", "all_rules"]


def check_source(source: str, *, filename: str = "<string>", strict: bool = False) -> list[Diagnostic]:
    """Every diagnostic for a PTX module (parser and checker), sorted by position. Never raises."""
    return capped(diagnose(source, filename=filename, strict=strict), filename)


def diagnose(source: str, *, filename: str = "<string>", strict: bool = False,
             skip_bodies: dict[int, int] | None = None) -> list[Diagnostic]:
    """`check_source` without the cap on the number of diagnostics; `skip_bodies` leaves those
    function bodies unchecked (see `parse`)."""
    try:
        # operands are parsed (and checked) as the rules need them
        module = parse(source, filename=filename, eager=False, skip_bodies=skip_bodies)
    except RecursionError:
        return [Diagnostic("PTX0006", "error", "input nests too deeply to check", 1, 1, 0, 1,
                           filename=filename)]
    except Exception as e:  # a parser bug: still no exception for the caller
        return [Diagnostic("PTX0000", "error", f"internal error in the parser: {type(e).__name__}: {e}",
                           1, 1, 0, 1, filename=filename,
                           notes=["this is a bug in ptxld; please report it with the input"])]
    return check_module(module, strict=strict, cap=False)


def check_module(module, *, strict: bool = False, cap: bool = True) -> list[Diagnostic]:
    c = Checker(module, strict)
    try:
        with no_gc():
            _run(c)
    except RecursionError:
        c.diags.append(Diagnostic("PTX0006", "error", "input nests too deeply to check", 1, 1, 0, 1,
                                  filename=module.source.filename))
    except Exception as e:  # a checker bug must not take the caller down; tests assert it never happens
        c.diags.append(Diagnostic("PTX0000", "error", f"internal error in the checker: {type(e).__name__}: {e}",
                                  1, 1, 0, 1, filename=module.source.filename,
                                  notes=["this is a bug in ptxld; please report it with the input"]))
    out = module.diagnostics + operand_errors(module) + c.diags
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
        d = decode(opcode)
        mn = d.mnemonic
        if mn not in MNEMONICS:
            k = _UNKNOWN
        elif mn == "ld":
            k = _LD
        elif mn in _STORE_LIKE:
            k = _STORE_RECORD if has_record_rules(d) else _STORE
        elif d.name == "wmma.load":
            k = _WMMA_LOAD
        elif has_record_rules(d):
            k = _RECORD
        elif d.spec is None and mn in SUBNAMES:
            k = _FAMILY
        else:
            k = _PLAIN
        if len(_KIND_OF) >= 8192:  # garbage input can spell endless opcodes
            _KIND_OF.clear()
        _KIND_OF[opcode] = k
    return k


def _run(c: Checker) -> None:
    check_header(c)
    # every instruction's operands are checked for declared names together, by scope
    together: dict = {}
    for ins in c.module.instructions:
        kind = _kind(ins.opcode)
        if kind == _UNKNOWN:
            check_mnemonic(c, ins, ins.opcode.partition(".")[0])
            continue
        scope = ins.scope or ins.module.scope
        group = together.get(scope)
        if group is None:
            group = together[scope] = []
            c.first[scope] = ins.start
        group.append(ins)
        if ins.guard is not None:
            check_guard(c, ins)
        if kind == _PLAIN:
            continue
        if kind == _LD:
            m = ins.load
            if isinstance(m, LoadModel):
                check_ld(c, ins, m)
        elif kind == _STORE:
            check_store_address_width(c, ins)
        elif kind == _RECORD:
            check_instruction(c, ins)
        elif kind == _STORE_RECORD:
            check_store_address_width(c, ins)
            check_instruction(c, ins)
        elif kind == _FAMILY:
            check_family(c, ins, ins.decoded)
        elif kind == _WMMA_LOAD:
            m = ins.load
            if isinstance(m, WmmaLoadModel):
                from .wmma import check_wmma_load  # spec/wmma.py only where wmma is used
                check_wmma_load(c, ins, m)
    for scope, group in together.items():
        check_names_together(c, scope, group)
