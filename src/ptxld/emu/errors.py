"""Faults the emulator reports, modelled on compute-sanitizer: what went wrong, where in the PTX
source, which thread and CTA, which state space and address, and what was expected."""
from __future__ import annotations


class EmulationError(Exception):
    """Base class of every fault the emulator raises while running a kernel.

    Attributes (None where they do not apply): `filename`, `line`, `instruction` (source text),
    `thread` and `cta` ((x, y, z) tuples), `space` (".global", ...), `address` (int)."""

    kind = "fault"

    def __init__(self, message: str, *, filename=None, line=None, instruction=None, thread=None,
                 cta=None, space=None, address=None, expected=None, others: int = 0):
        self.detail = message
        self.filename, self.line, self.instruction = filename, line, instruction
        self.thread, self.cta, self.space, self.address = thread, cta, space, address
        self.expected, self.others = expected, others
        super().__init__(self._render())

    def _render(self) -> str:
        head = self.detail
        if self.filename is not None and self.line is not None:
            head = f"{self.filename}:{self.line}: {head}"
        lines = [head]
        if self.instruction:
            lines.append(f"    at `{self.instruction}`")
        if self.thread is not None:
            more = f" (and {self.others} other thread{'s' if self.others != 1 else ''})" if self.others else ""
            cta = f" in CTA {_xyz(self.cta)}" if self.cta is not None else ""
            lines.append(f"    by thread {_xyz(self.thread)}{cta}{more}")
        if self.address is not None:
            lines.append(f"    address {self.address:#x} in {self.space or 'generic'} space")
        elif self.space:
            lines.append(f"    state space {self.space}")
        if self.expected:
            lines.append(f"    expected: {self.expected}")
        return "\n".join(lines)


def _xyz(t) -> str:
    return "(" + ",".join(str(int(v)) for v in t) + ")"


class MemoryFault(EmulationError):
    """A load, store or atomic touched memory it may not."""


class OutOfBoundsError(MemoryFault):
    kind = "out-of-bounds"


class MisalignedAddressError(MemoryFault):
    kind = "misaligned"


class GenericAddressError(MemoryFault):
    """A generic address that lies outside every window, or outside the window an instruction
    requires (`cvta.to`, `ld.global.nc`, qualifiers restricted to global)."""
    kind = "bad-generic-address"


class ReadOnlyMemoryError(MemoryFault):
    kind = "read-only"


class UninitializedParamError(EmulationError):
    kind = "uninitialized-param"


class BarrierError(EmulationError):
    """Barrier divergence or a barrier that can never complete."""
    kind = "barrier"


class WarpSyncError(EmulationError):
    """A warp-synchronous instruction whose member lanes cannot all take part."""
    kind = "warp-sync"


class WmmaFault(EmulationError):
    """A wmma instruction the wmma library rejected (non-uniform address, misaligned, ...)."""
    kind = "wmma"


class AsyncRegisterError(EmulationError):
    """A register of an asynchronous operation in flight (wgmma.mma_async) touched before the
    wait that completes it."""
    kind = "async-register"


class UnsupportedInstructionError(EmulationError):
    kind = "unsupported-instruction"


class StepBudgetError(EmulationError):
    kind = "step-budget"


class MemoryBudgetError(EmulationError):
    kind = "memory-budget"


class LaunchError(EmulationError):
    """Bad launch configuration or arguments (checked before any thread runs)."""
    kind = "launch"


class ModuleError(EmulationError):
    """The module cannot be loaded: syntax errors (listed with line:column) or missing pieces."""
    kind = "module"

    def __init__(self, message: str, diagnostics=()):
        self.diagnostics = list(diagnostics)
        super().__init__(message)


ALL_ERRORS = (EmulationError, MemoryFault, OutOfBoundsError, MisalignedAddressError,
              GenericAddressError, ReadOnlyMemoryError, UninitializedParamError, BarrierError,
              WarpSyncError, WmmaFault, UnsupportedInstructionError, StepBudgetError,
              MemoryBudgetError, LaunchError, ModuleError)


class AsyncCopyError(EmulationError):
    """An asynchronous copy used against the PTX ISA's rules: a cp.async group never waited for
    before the thread exits, a misaligned or badly sized bulk copy, a tensor box the tensor map
    does not allow."""
    kind = "async-copy"


class MbarrierError(BarrierError):
    """An mbarrier used against its protocol: not initialised, an arrival or transaction count
    beyond its phase, or a phase that can never complete (deadlock)."""
    kind = "mbarrier"


class TensorMapError(EmulationError, ValueError):
    """Tensor-map parameters that cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col refuse."""
    kind = "tensor-map"


ALL_ERRORS += (AsyncCopyError, MbarrierError, TensorMapError)
