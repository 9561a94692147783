"""Syntax errors: how the parser and the operand parser report what they cannot read."""
from __future__ import annotations

from ..diagnostics import Diagnostic

MAX_ERRORS = 200
SECTION = "PTX ISA 4 (Syntax)"


def make_syntax_error(source, start: int, end: int, message: str, *, code: str = "PTX0001",
                      help: str = "", fix: str | None = None, severity: str = "error") -> Diagnostic:
    line, col = source.position(start)
    return Diagnostic(code, severity, message, line, col, start, max(end, start + 1), help=help,
                      fix=fix, filename=source.filename, section=SECTION)


def add_diagnostic(module, d: Diagnostic) -> None:
    """Append a syntax diagnostic to the module, up to MAX_ERRORS (then one note saying so)."""
    if len(module.diagnostics) >= MAX_ERRORS:
        return
    module.diagnostics.append(d)
    if len(module.diagnostics) == MAX_ERRORS:
        module.diagnostics.append(Diagnostic(
            "PTX0006", "error", f"too many errors; stopped reporting after {MAX_ERRORS}", d.line,
            d.column, d.start, d.end, filename=module.source.filename))


def syntax_error(module, start: int, end: int, message: str, **kw) -> None:
    add_diagnostic(module, make_syntax_error(module.source, start, end, message, **kw))


def operand_errors(module) -> list[Diagnostic]:
    """The syntax errors of every instruction whose operands have been parsed, in order."""
    return [ins.operand_error for ins in module.instructions if ins.operand_error is not None]


def report_operand_errors(module) -> None:
    for d in operand_errors(module):
        add_diagnostic(module, d)
