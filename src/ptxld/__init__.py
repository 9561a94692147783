"""ptxld: NVIDIA's GPU load instructions as software.

Parse PTX modules (`parse`, `format`), check loads against the PTX ISA and ptxas (`check`), run
kernels on the CPU (`RawModule`), and work with Maxwell SASS `LDG` (`ptxld.sass`).
"""
from __future__ import annotations

from .diagnostics import Diagnostic
from .version import version
from .ptx.nodes import Module
from .ptx.parser import parse as _parse

__all__ = ["parse", "format", "check", "Diagnostic", "Module", "RawModule", "EmulationError",
           "FormatError", "__version__"]


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
    return _parse(_text(source, "parse"), filename=filename)


def format(source: str, *, filename: str = "<string>") -> str:  # noqa: A001 - the contract's name
    """The canonical text of a module (what `ptxld fmt` prints). Raises `FormatError` (a
    ValueError) on a module with syntax errors or a comment it cannot place: text is never lost."""
    # the printer only when formatting, for start-up time
    from .ptx.printer import format_module
    return format_module(_parse(_text(source, "format"), filename=filename))


def check(source: str, *, filename: str = "<string>", strict: bool = False) -> list[Diagnostic]:
    """Everything `ptxld check` reports for this text, sorted by position."""
    # the checker only when checking, for start-up time
    from .checker import check_source
    return check_source(_text(source, "check"), filename=filename, strict=strict)


def __getattr__(name: str):
    if name == "__version__":
        return version()
    if name == "FormatError":
        from .ptx.printer import FormatError
        return FormatError
    if name in ("RawModule", "EmulationError"):
        # the emulator loads NumPy: imported when asked for, for start-up time
        from . import emu
        return getattr(emu, name)
    raise AttributeError(f"module 'ptxld' has no attribute {name!r}")
