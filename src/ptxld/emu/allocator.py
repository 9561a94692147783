"""Keep freed array memory in the process heap for reuse.

The emulator allocates and frees arrays of a batch's size (hundreds of KiB to a few MiB) at every
instruction step. With glibc's defaults such blocks go back to the operating system as soon as
they are freed (mmap'd blocks at once, the top of the heap beyond the trim threshold), and the
next allocation faults in fresh zeroed pages; on a virtual machine that page-fault cost was most
of an fma.f32 step over 65,536 threads (2.7 ms, against 0.17 ms with the memory kept). Raising
the mmap and trim thresholds and the top pad keeps those blocks for the next step: the process
keeps its peak heap (as NumPy's own small-block cache does) instead of returning it.

Applied once, on the first launch; only with glibc; `PTXLD_KEEP_HEAP=0` in the environment
leaves the allocator alone.
"""
from __future__ import annotations

import ctypes
import os
import platform

M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
MMAP_THRESHOLD = 32 << 20           # glibc's largest accepted value on 64-bit systems
TRIM_THRESHOLD = 512 << 20
TOP_PAD = 64 << 20

_done: bool | None = None


def keep_heap() -> bool:
    """Tune glibc's malloc as described above (once per process); True if applied."""
    global _done
    if _done is None:
        _done = False
        if os.environ.get("PTXLD_KEEP_HEAP", "1") != "0" and platform.libc_ver()[0] == "glibc":
            try:
                mallopt = ctypes.CDLL(None).mallopt
            except (OSError, AttributeError):
                return False
            _done = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) & \
                bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)) & bool(mallopt(M_TOP_PAD, TOP_PAD))
    return _done
