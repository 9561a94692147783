"""`RawModule` / kernel launch: arguments to parameters, global buffers, CTA batches, results."""
from __future__ import annotations

import itertools
import math
import os
import time
from dataclasses import dataclass

import numpy as np

from ..checker import check_module
from ..ptx.parser import parse
from . import errors as E
from . import ptxtypes as T
from .machine import Batch
from .memory import LAYOUT32, LAYOUT64, GlobalMemory, Segment, Spaces
from .program import Program, _align_up

DEFAULT_MAX_STEPS = 5_000_000
DEFAULT_MEMORY_BUDGET = 4 << 30
DEFAULT_BATCH_THREADS = 1 << 17


@dataclass
class LaunchStats:
    kernel: str
    grid: tuple
    block: tuple
    threads: int
    warps: int
    ctas: int
    steps: int
    thread_instructions: int
    seconds: float

    def summary(self) -> str:
        rate = self.thread_instructions / self.seconds if self.seconds > 0 else float("inf")
        return (f"{self.kernel}: grid {self.grid} block {self.block}: {self.threads} threads, "
                f"{self.warps} warps, {self.ctas} CTAs; {self.steps} instructions executed, "
                f"{self.thread_instructions} thread-instructions in {self.seconds:.3f} s "
                f"({rate / 1e6:.1f} M thread-instructions/s)")


def _dim3(v, what: str) -> tuple[int, int, int]:
    t = (v,) if isinstance(v, (int, np.integer)) else tuple(v)
    if not 1 <= len(t) <= 3 or any(int(x) < 1 for x in t):
        raise E.LaunchError(f"{what} must be 1 to 3 positive integers, got {v!r}")
    return tuple(int(x) for x in t) + (1,) * (3 - len(t))


class RawModule:
    """A PTX module loaded for CPU emulation (the CuPy `RawModule` shape).

    `RawModule(code=text)` or `RawModule(path=file)`; syntax errors raise `ModuleError` listing
    every diagnostic as file:line:col, and so does a module ptxas would refuse (the checker's
    errors: an instruction no form of the PTX ISA allows, a gate the target misses, ...) unless
    `check=False`. Module `.global` variables keep their values between launches of the
    module's kernels."""

    def __init__(self, code: str | None = None, *, path: str | os.PathLike | None = None,
                 memory_budget: int = DEFAULT_MEMORY_BUDGET, check: bool = True):
        if (code is None) == (path is None):
            raise TypeError("give exactly one of code= or path=")
        filename = "<string>"
        if path is not None:
            filename = str(path)
            with open(path, encoding="utf-8") as f:
                code = f.read()
        module = parse(code, filename=filename)
        errors = [d for d in module.diagnostics if d.severity == "error"]
        if errors:
            lines = [f"{filename}:{d.line}:{d.column}: error[{d.code}]: {d.message}" for d in errors]
            raise E.ModuleError(f"{filename}: the module has {len(errors)} syntax error(s):\n" +
                                "\n".join(lines), errors)
        if check:
            # what ptxas would refuse, the emulator refuses too: a CI run on the CPU must not pass
            # a module the driver cannot load
            errors = [d for d in check_module(module, cap=False) if d.severity == "error"]
            if errors:
                lines = [f"{filename}:{d.line}:{d.column}: error[{d.code}]: {d.message}" for d in errors]
                raise E.ModuleError(f"{filename}: ptxas would refuse the module ({len(errors)} "
                                    "error(s); RawModule(..., check=False) runs it anyway):\n" +
                                    "\n".join(lines), errors)
        self.module = module
        self.filename = filename
        self.gmem = GlobalMemory(LAYOUT(module), memory_budget)
        self.program = Program(module, self.gmem)
        self.program.init_variables()

    def get_function(self, name: str) -> "Kernel":
        f = self.program.funcs.get(name)
        if f is None or not f.node.is_entry:
            entries = sorted(n for n, fn in self.program.funcs.items() if fn.node.is_entry)
            raise E.LaunchError(f"{self.filename}: no kernel named `{name}`; kernels: "
                                f"{', '.join(entries) or '(none)'}")
        return Kernel(self, name)

    def get_global(self, name: str) -> np.ndarray:
        """The bytes of a module `.global` variable (a live view)."""
        for v, seg in self.program.global_seg.items():
            if v.name == name:
                return seg.data[:seg.size]
        raise KeyError(name)


def LAYOUT(module):
    return LAYOUT32 if module.address_size == 32 else LAYOUT64


class Kernel:
    def __init__(self, mod: RawModule, name: str):
        self.mod = mod
        self.name = name
        self.stats: LaunchStats | None = None
        self.grid_id = 0

    def __repr__(self):
        return f"<ptxld kernel {self.name} from {self.mod.filename}>"

    def __call__(self, grid, block, args, *, shared_mem: int = 0, cluster=(1, 1, 1),
                 max_steps: int = DEFAULT_MAX_STEPS, batch_threads: int = DEFAULT_BATCH_THREADS,
                 progress=None) -> LaunchStats:
        """Run the kernel; NumPy array arguments are written back. Returns launch statistics."""
        grid, block, cluster = _dim3(grid, "grid"), _dim3(block, "block"), _dim3(cluster, "cluster")
        nthreads = math.prod(block)
        if nthreads > 1024:
            raise E.LaunchError(f"block {block} has {nthreads} threads; the limit is 1024")
        if any(g % c for g, c in zip(grid, cluster)):
            raise E.LaunchError(f"grid {grid} is not a whole number of clusters {cluster}")
        if shared_mem < 0:
            raise E.LaunchError("shared_mem must be >= 0")
        prog = self.mod.program
        self.explicit_cluster = cluster != (1, 1, 1)
        self.grid_id += 1
        t0 = time.perf_counter()
        gmem = self.mod.gmem
        segs, param_seg = self._bind(args)
        try:
            stats = self._run(grid, block, cluster, shared_mem, param_seg, max_steps,
                              batch_threads, progress)
        finally:
            gmem.segments = [s for s in gmem.segments if s not in [x[1] for x in segs] and s is not param_seg]
            gmem.bases = [s.base for s in gmem.segments]
            gmem.used -= sum(s.size for _, s in segs) + param_seg.size
        for arr, seg in segs:
            data = seg.data[:seg.size]
            if arr.flags.c_contiguous:
                arr.reshape(-1).view(np.uint8)[:] = data
            else:
                arr[...] = data.view(arr.dtype).reshape(arr.shape)
        stats.seconds = time.perf_counter() - t0
        self.stats = stats
        return stats

    # ------------------------------------------------------------------ arguments
    def _bind(self, args):
        prog = self.mod.program
        plist = prog.kernel_params[self.name]
        if len(args) != len(plist):
            raise E.LaunchError(f"kernel `{self.name}` takes {len(plist)} argument(s), got {len(args)}")
        size = max(1, max((o + s for _, o, s in plist), default=0))
        buf = np.zeros(_align_up(size, 32), np.uint8)
        segs = []
        gmem = self.mod.gmem
        for k, ((p, off, psize), a) in enumerate(zip(plist, args)):
            if isinstance(a, np.ndarray):
                if psize * 8 != prog.layout.bits:
                    raise E.LaunchError(f"argument {k}: a NumPy array is passed as a pointer, but "
                                        f"parameter `{p.name}` is {p.type}{'[]' if p.dims else ''} "
                                        f"({psize} bytes)")
                raw = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
                seg = gmem.alloc(raw.size, f"argument {k} ({a.dtype}[{a.size}])", align=256, data=raw)
                segs.append((a, seg))
                blob = seg.base.to_bytes(psize, "little")
            elif isinstance(a, (bytes, bytearray, np.void)):
                blob = bytes(a) if not isinstance(a, np.void) else a.tobytes()
                if len(blob) > psize:
                    raise E.LaunchError(f"argument {k}: {len(blob)} bytes for parameter `{p.name}` "
                                        f"of {psize} bytes")
                blob = blob + b"\0" * (psize - len(blob))
            else:
                blob = _scalar_bytes(a, p, k)
            buf[off:off + psize] = np.frombuffer(blob, np.uint8)
        L = prog.layout
        param_seg = Segment(L.param, size, buf, "kernel parameters", readonly=True)
        gmem.charge(size, "kernel parameters")
        gmem.add(param_seg)
        return segs, param_seg

    # ------------------------------------------------------------------ execution
    def _run(self, grid, block, cluster, dyn, param_seg, max_steps, batch_threads, progress):
        prog = self.mod.program
        fn = prog.funcs[self.name]
        nthreads = math.prod(block)
        spc = (nthreads + 31) // 32 * 32
        shared_size = (prog.extern_shared_offset() + dyn) if (prog.extern_shared or dyn) else prog.static_shared
        shared_size = max(shared_size, prog.static_shared)
        csize = math.prod(cluster)
        # CTAs in cluster order, each cluster's CTAs by rank
        ncl = [g // c for g, c in zip(grid, cluster)]
        order = []
        for cz, cy, cx in itertools.product(range(ncl[2]), range(ncl[1]), range(ncl[0])):
            for rz, ry, rx in itertools.product(range(cluster[2]), range(cluster[1]), range(cluster[0])):
                order.append((cx * cluster[0] + rx, cy * cluster[1] + ry, cz * cluster[2] + rz))
        order = np.array(order, np.int64)
        lin = np.arange(spc)
        tx = (lin % block[0]).astype(np.uint32)
        ty = ((lin // block[0]) % block[1]).astype(np.uint32)
        tz = (lin // (block[0] * block[1])).astype(np.uint32)
        real = lin < nthreads
        per_batch = max(csize, (max(1, batch_threads // spc) // csize) * csize)
        steps = tinstr = 0
        self._first = 0
        for start in range(0, len(order), per_batch):
            ctas = order[start:start + per_batch]
            nb = len(ctas)
            N = nb * spc
            cta_of = np.repeat(np.arange(nb), spc)
            rank = np.arange(nb) % csize
            cfirst = np.arange(nb) - rank
            sp = Spaces(self.mod.gmem, prog.const, param_seg, n_threads=N, cta_of=cta_of,
                        shared_size=shared_size, n_ctas=nb, local_size=prog.local_size,
                        cluster_first=cfirst, cluster_size=csize, rank_of=rank)
            try:
                tid = (np.tile(tx, nb), np.tile(ty, nb), np.tile(tz, nb))
                b = Batch(self, prog, sp, cta_coords=ctas, n_slots_per_cta=spc, block=block,
                          grid=grid, cluster=cluster, dyn_smem=dyn,
                          live_per_cta=np.full(nb, nthreads, np.int64), tid_xyz=tid,
                          max_steps=max_steps - steps, progress=progress)
                alive = np.tile(real, nb)
                b.exited = ~alive
                b.schedule(fn.entry_pc, None if alive.all() else np.flatnonzero(alive))
                self._batch_first = start
                b.run()
                steps += b.steps
                tinstr += b.thread_instructions
            finally:
                sp.release()
        n_ctas = len(order)
        return LaunchStats(self.name, grid, block, n_ctas * nthreads, n_ctas * (spc // 32), n_ctas,
                           steps, tinstr, 0.0)

    def first_cta_linear(self, b):
        c = b.cta_coords
        return c[:, 0] + b.grid[0] * (c[:, 1] + b.grid[1] * c[:, 2])


def _scalar_bytes(a, p, k) -> bytes:
    t = p.type
    if p.dims:
        raise E.LaunchError(f"argument {k}: parameter `{p.name}` is a {t} array; pass bytes or a "
                            f"structured NumPy scalar")
    w = T.WIDTH.get(t)
    if w is None or w == 1:
        raise E.LaunchError(f"argument {k}: unsupported parameter type {t}")
    nb = w // 8
    if isinstance(a, np.generic):
        if a.dtype.itemsize != nb:
            raise E.LaunchError(f"argument {k}: {a.dtype} ({a.dtype.itemsize} bytes) for parameter "
                                f"`{p.name}` of type {t} ({nb} bytes)")
        return a.tobytes()
    if isinstance(a, bool) or isinstance(a, int):
        if T.is_float(t):
            return int(T.float_bits(float(a), t)).to_bytes(nb, "little")
        lo, hi = -(1 << (w - 1)), (1 << w) - 1
        if not lo <= a <= hi:
            raise E.LaunchError(f"argument {k}: {a} does not fit parameter `{p.name}` of type {t}")
        return (a & ((1 << w) - 1)).to_bytes(nb, "little")
    if isinstance(a, float):
        if not T.is_float(t) and t[1] != "b":
            raise E.LaunchError(f"argument {k}: float {a} for integer parameter `{p.name}` ({t})")
        ft = t if T.is_float(t) else {2: ".f16", 4: ".f32", 8: ".f64"}[nb]
        return int(T.float_bits(a, ft)).to_bytes(nb, "little")
    raise E.LaunchError(f"argument {k}: cannot pass {type(a).__name__} to parameter `{p.name}`")
