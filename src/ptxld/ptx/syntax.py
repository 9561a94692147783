"""Syntax errors: how the parser and the operand parser report what they cannot read."""
from __future__ import annotations

from .. import patterns
from ..diagnostics import Diagnostic

MAX_ERRORS = 200
SECTION = "PTX ISA 4 (Syntax)"


def make_syntax_error(source, start: int, end: int, message: str, *, code: str = "PTX0001",
                      help: str = "", fix: str | None = None, severity: str = "error") -> Diagnostic:
    line, col = source.position(start)
    return Diagnostic(code, severity, message, line, col, start, max(end, start + 1), help=help,
                      fix=fix, filename=source.filename, section=SECTION)


_NON_ASCII = patterns.compile(r"[^\x00-\x7f]")
_NAMED = {"\ufeff": "a byte order mark", "\ufffd": "an invalid UTF-8 byte, shown replaced",
          "\u00a0": "a no-break space", "\u200b": "a zero-width space"}


def non_ascii_error(source) -> Diagnostic | None:
    """The first character outside ASCII, as ptxas reports it ("Unexpected non-ASCII character"):
    PTX source is ASCII text, comments included. The character is named by its code point, so
    an invisible one (a byte order mark, a no-break space) is seen in the message."""
    m = _NON_ASCII.search(source.text)
    if m is None:
        return None
    ch = m.group()
    name = _NAMED.get(ch) or (f"`{ch}`" if ch.isprintable() and not ch.isspace() else "invisible")
    return make_syntax_error(source, m.start(), m.end(), f"non-ASCII character U+{ord(ch):04X} "
                             f"({name}): PTX source is ASCII text", code="PTX0002",
                             help="remove it, or write it as ASCII (ptxas stops at the first one)")


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
