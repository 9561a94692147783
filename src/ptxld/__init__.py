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
           "TensorMap", "__version__"]


def parse(source: str, *, filename: str = "<string>") -> Module:
    """Parse a PTX module. Never raises on bad PTX: syntax errors are in `Module.diagnostics`."""
    return _parse(source, filename=filename)


def format(source: str) -> str:  # noqa: A001 - the contract's name
    """The canonical text of a module (what `ptxld fmt` prints)."""
    # the printer only when formatting, for start-up time
    from .ptx.printer import format_module
    return format_module(_parse(source))


def check(source: str, *, filename: str = "<string>", strict: bool = False) -> list[Diagnostic]:
    """Everything `ptxld check` reports for this text, sorted by position."""
    # the checker only when checking, for start-up time
    from .checker import check_source
    return check_source(source, filename=filename, strict=strict)


def __getattr__(name: str):
    if name == "__version__":
        return version()
    if name in ("RawModule", "EmulationError", "TensorMap"):
        # the emulator loads NumPy: imported when asked for, for start-up time
        from . import emu
        return getattr(emu, name)
    raise AttributeError(f"module 'ptxld' has no attribute {name!r}")
