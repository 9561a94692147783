"""Modules loaded on first use, for start-up time.

`import ptxld` and `ptxld check` stay fast because what only some calls need is imported when
they run. Each deferred module is listed here with what loading it eagerly would cost; `load`
refuses any other, so the reasons live in one place. tests/arch/test_layers.py checks every
`lazy.load("...")` against the layering as if it were an import.
"""
from __future__ import annotations

import importlib

#: module -> why it is not imported at start-up
DEFERRED = {
    "ptxld.emu": "the emulator brings NumPy into `import ptxld` (NumPy alone is ~55 ms; "
                 "`import ptxld` is ~1 ms without it)",
    "ptxld.memreport": "loaded with the emulator, never alone: it registers the memory report "
                       "that kernels return with memory_report=True (NumPy, as the emulator)",
    "ptxld.wmma.render": "the wmma fragment pictures and tables of `ptxld explain` (2.4 ms of "
                         "every `ptxld check` otherwise)",
    "ptxld.wmma.matrix_render": "the mma.sync / ldmatrix / wgmma pictures of `ptxld explain --svg`",
}


def load(name: str):
    """The module `name`, imported now (it must be one of DEFERRED)."""
    if name not in DEFERRED:
        raise KeyError(f"{name} is not a deferred module (ptxld.lazy.DEFERRED lists them)")
    return importlib.import_module(name)
