"""CPU emulator of PTX kernels: `RawModule(code=... | path=...)`, `.get_function(name)`, and
`kernel(grid, block, args, *, shared_mem=0)`.

Registers are NumPy arrays over all threads of a batch of CTAs; threads at the same program
counter execute together (min-PC SIMT scheduling). Faults raise `EmulationError` subclasses that
name the PTX line, the instruction, the thread and CTA, the state space and the address."""
from .errors import (BarrierError, EmulationError, GenericAddressError, LaunchError,
                     MemoryBudgetError, MemoryFault, MisalignedAddressError, ModuleError,
                     OutOfBoundsError, ReadOnlyMemoryError, StepBudgetError,
                     UninitializedParamError, UnsupportedInstructionError, WarpSyncError,
                     WmmaFault)
from .api import Kernel, LaunchStats, RawModule
from .errors import AsyncCopyError, MbarrierError, TensorMapError
from .tensormap import TensorMap

__all__ = ["RawModule", "Kernel", "LaunchStats", "EmulationError", "MemoryFault",
           "OutOfBoundsError", "MisalignedAddressError", "GenericAddressError",
           "ReadOnlyMemoryError", "UninitializedParamError", "BarrierError", "WarpSyncError",
           "WmmaFault", "UnsupportedInstructionError", "StepBudgetError", "MemoryBudgetError",
           "LaunchError", "ModuleError", "AsyncCopyError", "MbarrierError", "TensorMap",
           "TensorMapError", "AsyncRegisterError"]
from .errors import AsyncRegisterError  # noqa: E402  (wgmma registers touched before the wait)
