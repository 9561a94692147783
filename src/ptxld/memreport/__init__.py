"""Memory reports: what every memory instruction of a launch costs.

`kernel(grid, block, args, memory_report=True)` returns a `Report`: per PTX source line and for
the kernel, warp executions, requests, 32-byte sectors against the ideal, shared-memory
wavefronts and bank conflicts, and the L1/L2 hits and misses and DRAM sectors of a cache model
in which the PTX cache operators, eviction priorities, cache policies and prefetch sizes act as
the PTX ISA describes. Importing this package registers it with the emulator.
"""
from __future__ import annotations

from ..emu.trace import register_report
from .cache import PRESETS, CacheConfig, preset_for
from .recorder import Recorder, ReportOptions
from .report import Finding, Report

register_report(Recorder)

__all__ = ["Report", "Finding", "CacheConfig", "PRESETS", "preset_for", "ReportOptions", "Recorder"]
