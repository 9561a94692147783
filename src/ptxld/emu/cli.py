"""`ptxld run FILE --kernel NAME --grid X[,Y,Z] --block X[,Y,Z] ARGS...`

ARGS: `.npy` files (global buffers, written back in place or into --out DIR) or typed scalars
`u32:1024`, `s64:-3`, `f32:2.5`, `f64:1e-3`, `b16:0x3c00`."""
from __future__ import annotations

import os
import sys
import time

import click
import numpy as np

from .api import DEFAULT_MAX_STEPS, RawModule
from .errors import EmulationError

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
        raise click.BadParameter(f"{what} must be X[,Y[,Z]] integers, got {text!r}")


def _arg(text: str):
    if ":" in text and text.split(":", 1)[0] in _SCALARS:
        kind, val = text.split(":", 1)
        dt = _SCALARS[kind]
        try:
            if kind[0] == "f":
                return np.array(float(val), dt)[()], None
            return np.array(int(val, 0), np.int64).astype(dt)[()], None
        except ValueError:
            raise click.BadParameter(f"bad {kind} value {val!r} in {text!r}")
    if text.endswith(".npy"):
        try:
            return np.load(text), text
        except OSError as e:
            raise click.BadParameter(f"cannot read {text}: {e}")
    raise click.BadParameter(f"argument {text!r} is neither a .npy file nor a typed scalar "
                             f"like u32:1024 or f32:2.5")


@click.command("run")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--kernel", "-k", required=True, help="Entry name as it appears in the PTX.")
@click.option("--grid", "-g", default="1", help="Grid size X[,Y,Z].")
@click.option("--block", "-b", required=True, help="Block size X[,Y,Z].")
@click.option("--cluster", default="1", help="Cluster size X[,Y,Z] (sm_90).")
@click.option("--shared-mem", default=0, type=int, help="Dynamic shared memory bytes.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Write buffers here instead of back into the .npy files.")
@click.option("--max-steps", default=None, type=int, help="Instruction-step budget.")
@click.option("--quiet", "-q", is_flag=True, help="No summary.")
@click.option("--no-check", is_flag=True,
              help="Run even a module ptxas would refuse (skip the checker's errors).")
@click.argument("args", nargs=-1)
def run_cmd(file, kernel, grid, block, cluster, shared_mem, out_dir, max_steps, quiet, no_check, args):
    """Run a kernel of FILE on the CPU. ARGS are .npy buffers or typed scalars (u32:1024)."""
    parsed = [_arg(a) for a in args]
    progress = _Progress() if sys.stderr.isatty() else None
    try:
        mod = RawModule(path=file, check=not no_check)
        k = mod.get_function(kernel)
        stats = k(_dims(grid, "--grid"), _dims(block, "--block"), [p for p, _ in parsed],
                  shared_mem=shared_mem, cluster=_dims(cluster, "--cluster"),
                  max_steps=max_steps or DEFAULT_MAX_STEPS,
                  progress=progress.update if progress else None)
    except EmulationError as e:
        if progress:
            progress.clear()
        click.echo(f"error: {type(e).__name__}: {e}", err=True)
        sys.exit(1)
    if progress:
        progress.clear()
    for value, path in parsed:
        if path is None:
            continue
        dest = path if out_dir is None else os.path.join(out_dir, os.path.basename(path))
        if out_dir:
            os.makedirs(out_dir, exist_ok=True)
        np.save(dest, value)
    if not quiet:
        click.echo(stats.summary())


class _Progress:
    """A one-line progress report on stderr for long launches (TTY only)."""

    def __init__(self):
        self.t0 = time.perf_counter()
        self.shown = False

    def update(self, batch):
        dt = time.perf_counter() - self.t0
        if dt < 1.0:
            return
        done = int(batch.exited.sum())
        click.echo(f"\r  {dt:6.1f} s  {batch.steps} steps  {batch.thread_instructions:,} "
                   f"thread-instructions  {done}/{batch.N} threads of this batch done",
                   err=True, nl=False)
        self.shown = True

    def clear(self):
        if self.shown:
            click.echo("\r" + " " * 100 + "\r", err=True, nl=False)
