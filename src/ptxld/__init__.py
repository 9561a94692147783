"""ptxld: NVIDIA's GPU load instructions as software.

Parse PTX modules (`parse`, `format`), check loads against the PTX ISA and ptxas (`check`), run
kernels on the CPU (`RawModule`), and work with Maxwell SASS `LDG` (`ptxld.sass`).
"""
from __future__ import annotations

# (typing itself is not imported: 3 ms of every start; type checkers read the name as True)
TYPE_CHECKING = False

from . import lazy
from .version import version

if TYPE_CHECKING:
    from .diagnostics import Diagnostic
    from .ptx.nodes import Module

__all__ = ["parse", "format", "check", "Diagnostic", "Module", "RawModule", "EmulationError",
           "FormatError", "TensorMap", "__version__"]


def _text(source, what: str) -> str:
    """PTX text from `str` (or `bytes`, read as UTF-8); anything else is a TypeError."""
    if isinstance(source, str):
        return source
    if isinstance(source, (bytes, bytearray, memoryview)):
        # bad bytes become U+FFFD, which the checker reports as a non-ASCII character
        return bytes(source).decode("utf-8", errors="replace")
    raise TypeError(f"ptxld.{what}() takes PTX text as str (or UTF-8 bytes), not "
                    f"{type(source).__name__}")


def parse(source: str, *, filename: str = "<string>") -> Module:
    """Parse a PTX module. Never raises on bad PTX: syntax errors are in `Module.diagnostics`
    (a `source` that is not text is a TypeError)."""
    # start-up time: the parser only when parsing (`ptxld --version` and `--help` need none of it)
    from .ptx.parser import parse as parse_module
    return parse_module(_text(source, "parse"), filename=filename)


def format(source: str, *, filename: str = "<string>") -> str:  # noqa: A001 - the contract's name
    """The canonical text of a module (what `ptxld fmt` prints). Raises `FormatError` (a
    ValueError) on a module with syntax errors or a comment it cannot place: text is never lost."""
    # the printer only when formatting, for start-up time
    from .ptx.formatting import format_text
    return format_text(_text(source, "format"), filename=filename)


def check(source: str, *, filename: str = "<string>", strict: bool = False, select=None,
          ignore=None) -> list[Diagnostic]:
    """Everything `ptxld check` reports for this text, sorted by position. `select`/`ignore`:
    rule codes or prefixes (`["PTX02"]`, `["PTX0203"]`), most specific wins, as on the command
    line; `// ptxld: ignore[...]` comments in the text are honoured. Configuration files are
    not read (the command line reads them)."""
    # the checker only when checking, for start-up time
    from .checker import check_source
    return check_source(_text(source, "check"), filename=filename, strict=strict, select=select, ignore=ignore)


def __getattr__(name: str):
    if name == "__version__":
        return version()
    if name in ("Module", "Diagnostic"):
        # start-up time: the node and diagnostic classes only when asked for
        from .diagnostics import Diagnostic
        from .ptx.nodes import Module
        return Module if name == "Module" else Diagnostic
    if name == "FormatError":
        # start-up time: the printer only when asked for
        from .ptx.printer import FormatError
        return FormatError
    if name in ("RawModule", "EmulationError", "TensorMap"):
        lazy.load("ptxld.memreport")            # registers itself with the emulator
        return getattr(lazy.load("ptxld.emu"), name)
    raise AttributeError(f"module 'ptxld' has no attribute {name!r}")
