"""`ptxld run FILE --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] ARGS...`

ARGS: `.npy` files (global buffers; those the kernel wrote are saved in place or into --out DIR)
or typed scalars
`u32:1024`, `s64:-3`, `f32:2.5`, `f64:1e-3`, `b16:0x3c00`."""
from __future__ import annotations

import os
import sys
import time

import numpy as np

from ..cliutil import BadParameter, Path, argument, command, echo, option
from ..io import InputError, read_ptx
from .api import DEFAULT_MAX_STEPS, DEFAULT_MEMORY_BUDGET, RawModule
from .errors import EmulationError
from .machine import DEFAULT_MAX_CALL_DEPTH

_SCALARS = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
            "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
            "b8": np.uint8, "b16": np.uint16, "b32": np.uint32, "b64": np.uint64,
            "f16": np.float16, "f32": np.float32, "f64": np.float64}


def _dims(text: str, what: str):
    try:
        v = tuple(int(x) for x in text.split(","))
        if not 1 <= len(v) <= 3:
            raise ValueError
        return v
    except ValueError:
        raise BadParameter(f"{what} must be X[,Y[,Z]] integers, got {text!r}")


def _arg(text: str):
    if ":" in text and text.split(":", 1)[0] in _SCALARS:
        kind, val = text.split(":", 1)
        dt = _SCALARS[kind]
        try:
            if kind[0] == "f":
                return np.array(float(val), dt)[()], None
            value = int(val, 0)
        except ValueError:
            raise BadParameter(f"bad {kind} value {val!r} in {text!r}")
        info = np.iinfo(dt)
        lo = info.min if kind[0] != "b" else -(info.max // 2) - 1
        if not lo <= value <= info.max:
            raise BadParameter(f"{text!r}: {value} does not fit {kind} ({lo} to {info.max})")
        return np.array(value, np.int64 if value < 0 else np.uint64).astype(dt)[()], None
    if text.endswith(".npy"):
        return _load_npy(text), text
    raise BadParameter(f"argument {text!r} is neither a .npy file nor a typed scalar "
                       f"like u32:1024 or f32:2.5")


def _load_npy(path: str) -> np.ndarray:
    try:
        value = np.load(path, allow_pickle=False)
    except OSError as e:
        raise BadParameter(f"cannot read {path}: {e.strerror or e}")
    except (ValueError, EOFError):
        raise BadParameter(f"{path} is not a NumPy .npy array of numbers (a text file, pickled "
                           "Python objects or a damaged file?)")
    if not isinstance(value, np.ndarray):
        raise BadParameter(f"{path} holds an archive, not one array")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise BadParameter(f"{text!r} is not a valid integer")
    if value <= 0:
        raise BadParameter("must be a positive integer")
    return value


def _writable_dir(path: str) -> None:
    """Make --out DIR now, so that a bad path fails before the kernel runs, not after."""
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise BadParameter(f"cannot create {path}: {e.strerror or e}", param_hint="--out")
    if not os.access(path, os.W_OK):
        raise BadParameter(f"{path} is not writable", param_hint="--out")


def run_options(fn):
    """The options and arguments of `ptxld run` (shared with its memory-report flavour, which
    adds its own options and passes these on to `run_kernel`)."""
    for deco in reversed((
        argument("file", type=Path(exists=True, dir_okay=False)),
        option("--kernel", "-k", required=True, help="Entry name as it appears in the PTX."),
        option("--grid", "-g", default="1", help="Grid size X[,Y,Z]."),
        option("--block", "-b", required=True, help="Block size X[,Y,Z]."),
        option("--cluster", default=None, help="Cluster size X[,Y,Z] (sm_90; default: the kernel's "
               ".reqnctapercluster, else 1)."),
        option("--shared-mem", default=0, type=int, help="Dynamic shared memory bytes."),
        option("--out", dest="out_dir", type=Path(file_okay=False), default=None,
               help="Write the buffers the kernel wrote here instead of back into their .npy files."),
        option("--max-steps", default=DEFAULT_MAX_STEPS, show_default=True, type=_positive,
               help="Instruction-step budget (a runaway loop stops with an error)."),
        option("--memory-budget", default=DEFAULT_MEMORY_BUDGET, show_default=True, type=_positive,
               help="Bytes the emulator may allocate (buffers, shared, local, registers)."),
        option("--max-call-depth", default=DEFAULT_MAX_CALL_DEPTH, show_default=True, type=_positive,
               help="Deepest call chain (recursion) a thread may build."),
        option("--async-copies", choices=["wait", "late"], default="wait",
               help="When asynchronous copies land: at the first wait covering them (default), or "
               "as late as the PTX ISA allows (surfaces missing waits)."),
        option("--no-check", action="store_true",
               help="Run even a module ptxas would refuse (skip the checker's errors)."),
        option("--quiet", "-q", action="store_true", help="No summary."),
        argument("args", nargs="*"),
    )):
        fn = deco(fn)
    return fn


def run_kernel(file, kernel, grid, block, cluster, shared_mem, out_dir, max_steps, memory_budget,
               max_call_depth, async_copies, no_check, args, memory_report=False):
    """Run a kernel as `ptxld run` does: exit 1 with the error on a fault, save the buffers the
    kernel wrote. Returns the launch statistics (or the memory report, when asked for)."""
    _, warning = read_ptx(file)  # not PTX text at all: the same error (exit 2) as `check`
    if warning:
        raise InputError(f"{warning}; not run")
    parsed = [_arg(a) for a in args]
    dims = (_dims(grid, "--grid"), _dims(block, "--block"), None if cluster is None else _dims(cluster, "--cluster"))
    if out_dir is not None:
        _writable_dir(out_dir)
    # a bar only on a terminal; piped output gets the summary line alone
    progress = _Progress() if sys.stderr.isatty() and sys.stdout.isatty() else None
    try:
        mod = RawModule(path=file, memory_budget=memory_budget, check=not no_check)
        k = mod.get_function(kernel)
        result = k(dims[0], dims[1], [p for p, _ in parsed], shared_mem=shared_mem, cluster=dims[2],
                   max_steps=max_steps, max_call_depth=max_call_depth, async_copies=async_copies,
                   progress=progress.update if progress else None, memory_report=memory_report)
    except EmulationError as e:
        if progress:
            progress.clear()
        echo(f"error: {type(e).__name__}: {e}", err=True)
        sys.exit(1)
    if progress:
        progress.clear()
    stats = result.stats if memory_report else result
    arrays = [i for i, (_, path) in enumerate(parsed) if path is not None]
    for i in arrays:
        if i not in stats.written:
            continue  # an input: its file is left as it is
        value, path = parsed[i]
        dest = path if out_dir is None else os.path.join(out_dir, os.path.basename(path))
        try:
            np.save(dest, value)
        except OSError as e:
            echo(f"error: cannot write {dest}: {e.strerror or e}", err=True)
            sys.exit(2)
    return result


@command("run")
@run_options
def run_cmd(quiet, **run_args):
    """Run a kernel of FILE on the CPU. ARGS are .npy buffers or typed scalars (u32:1024).

    Only the buffers the kernel wrote are saved (in place, or into --out DIR)."""
    stats = run_kernel(**run_args)
    if not quiet:
        echo(stats.summary())


class _Progress:
    """A one-line progress report on stderr for long launches (a terminal only), redrawn at most
    ten times a second."""

    INTERVAL = 0.1   # seconds between redraws
    DELAY = 1.0      # quiet launches stay quiet

    def __init__(self):
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.shown = False

    def update(self, batch):
        now = time.perf_counter()
        dt = now - self.t0
        if dt < self.DELAY or now - self.last < self.INTERVAL:
            return
        self.last = now
        done = int(batch.exited.sum())
        echo(f"\r  {dt:6.1f} s  {batch.steps} steps  {batch.thread_instructions:,} "
             f"thread-instructions  {done}/{batch.N} threads of this batch done",
             err=True, nl=False)
        self.shown = True

    def clear(self):
        if self.shown:
            echo("\r" + " " * 100 + "\r", err=True, nl=False)
