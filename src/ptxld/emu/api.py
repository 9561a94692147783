"""`RawModule` / kernel launch: arguments to parameters, global buffers, CTA batches, results."""
from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass

import numpy as np

from ..io import InputError, read_ptx
from ..ptx.parser import parse
from ..spec.launch import launch_problems, target_number
from . import errors
from . import ptxtypes
from .handlers import CompileError
from .machine import DEFAULT_MAX_CALL_DEPTH, Batch
from .memory import LAYOUT32, LAYOUT64, GlobalMemory, Segment, Spaces
from .cluster_shape import launch_cluster
from .program import Program, _align_up, var_size
from .tensormap import TensorMap, bind_tensor_maps
from .trace import new_recorder

DEFAULT_MAX_STEPS = 5_000_000
DEFAULT_MEMORY_BUDGET = 4 << 30
DEFAULT_BATCH_THREADS = 1 << 17
ASYNC_MODES = ("wait", "late")


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
    written: tuple = ()       # indices of the array arguments the kernel wrote

    def summary(self) -> str:
        rate = self.thread_instructions / self.seconds if self.seconds > 0 else float("inf")
        return (f"{self.kernel}: grid {self.grid} block {self.block}: {self.threads} threads, "
                f"{self.warps} warps, {self.ctas} CTAs; {self.steps} instructions executed, "
                f"{self.thread_instructions} thread-instructions in {self.seconds:.3f} s "
                f"({rate / 1e6:.1f} M thread-instructions/s)")


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _dim3(v, what: str) -> tuple[int, int, int]:
    if _is_int(v):
        t = (v,)
    elif isinstance(v, (tuple, list)) or (isinstance(v, np.ndarray) and v.ndim == 1):
        t = tuple(v)
    else:  # a string "12" would read as (1, 2)
        raise errors.LaunchError(f"{what} must be an integer or 1 to 3 integers, got {v!r}")
    if not 1 <= len(t) <= 3 or not all(_is_int(x) and int(x) >= 1 for x in t):
        raise errors.LaunchError(f"{what} must be 1 to 3 positive integers, got {v!r}")
    return tuple(int(x) for x in t) + (1,) * (3 - len(t))


def _positive(value, what: str) -> int:
    if not _is_int(value) or value <= 0:
        raise errors.LaunchError(f"{what} must be a positive integer, got {value!r}")
    return int(value)


class RawModule:
    """A PTX module loaded for CPU emulation (the CuPy `RawModule` shape).

    `RawModule(code=text)` or `RawModule(path=file)`; syntax errors raise `ModuleError` listing
    every diagnostic as file:line:col. Module `.global` variables keep their values between
    launches of the module's kernels."""

    def __init__(self, code: str | None = None, *, path: str | os.PathLike | None = None,
                 memory_budget: int = DEFAULT_MEMORY_BUDGET):
        if (code is None) == (path is None):
            raise TypeError("give exactly one of code= or path=")
        filename = "<string>"
        if path is not None:
            filename = str(path)
            try:
                code, warning = read_ptx(filename)
            except InputError as e:
                raise errors.ModuleError(str(e), []) from None
            if warning:
                raise errors.ModuleError(f"{warning}; not loaded", [])
        elif isinstance(code, (bytes, bytearray)):
            code = bytes(code).decode("utf-8", errors="replace")
        elif not isinstance(code, str):
            raise TypeError(f"code= takes PTX text, not {type(code).__name__}")
        memory_budget = _positive(memory_budget, "memory_budget")
        module = parse(code, filename=filename)
        syntax_errors = [d for d in module.diagnostics if d.severity == "error"]
        if syntax_errors:
            lines = [f"{filename}:{d.line}:{d.column}: error[{d.code}]: {d.message}" for d in syntax_errors]
            raise errors.ModuleError(f"{filename}: the module has {len(syntax_errors)} syntax error(s):\n" +
                                "\n".join(lines), syntax_errors)
        self.module = module
        self.filename = filename
        self.gmem = GlobalMemory(LAYOUT(module), memory_budget)
        try:
            self.program = Program(module, self.gmem)
            self.program.init_variables()
        except CompileError as e:  # e.g. an initializer naming no variable
            raise errors.ModuleError(f"{filename}: {e}", []) from None

    def get_function(self, name: str) -> "Kernel":
        f = self.program.funcs.get(name)
        if f is None or not f.node.is_entry:
            entries = sorted(n for n, fn in self.program.funcs.items() if fn.node.is_entry)
            raise errors.LaunchError(f"{self.filename}: no kernel named `{name}`; kernels: "
                                f"{', '.join(entries) or '(none)'}")
        return Kernel(self, name)

    def get_global(self, name: str) -> np.ndarray:
        """The bytes of a module `.global` variable (a live view)."""
        for v, seg in self.program.global_seg.items():
            if v.name == name:
                return seg.data[:seg.size]
        raise KeyError(name)

    def get_const(self, name: str) -> np.ndarray:
        """The bytes of a module `.const` variable (a live view, as cudaMemcpyToSymbol writes
        them): what is written here is what the module's kernels read, e.g. a tensor map."""
        prog = self.program
        for v, off in prog.const_off.items():
            if v.name == name:
                return prog.const.data[off:off + var_size(v)]
        raise KeyError(name)


def LAYOUT(module):
    return LAYOUT32 if module.address_size == 32 else LAYOUT64


class Kernel:
    def __init__(self, mod: RawModule, name: str):
        self.mod = mod
        self.name = name
        self.stats: LaunchStats | None = None
        self.grid_id = 0
        self.trace = None                    # the memory-report recorder of a running launch

    def __repr__(self):
        return f"<ptxld kernel {self.name} from {self.mod.filename}>"

    def __call__(self, grid, block, args, *, shared_mem: int = 0, cluster=None,
                 max_steps: int = DEFAULT_MAX_STEPS, batch_threads: int = DEFAULT_BATCH_THREADS,
                 max_call_depth: int = DEFAULT_MAX_CALL_DEPTH, progress=None, memory_report=False,
                 async_copies: str = "wait"):
        """Run the kernel. NumPy arrays the kernel wrote are written back (a read-only array is
        an input: a store into it faults); `stats.written` lists them. Returns launch statistics,
        or with `memory_report` (True, or the report's options) the memory report of the launch
        (`ptxld.memreport`), which carries the statistics as `.stats`.

        `cluster`: None takes the kernel's `.reqnctapercluster` (else clusters of one).
        `async_copies` picks when asynchronous copies land (docs/async-copies.md): "wait" (at
        the first wait that covers them) or "late" (as late as the PTX ISA allows)."""
        if async_copies not in ASYNC_MODES:
            raise errors.LaunchError(f"async_copies={async_copies!r}: expected one of {', '.join(ASYNC_MODES)}")
        self.async_mode = async_copies
        grid, block = _dim3(grid, "grid"), _dim3(block, "block")
        cluster, self.explicit_cluster = launch_cluster(
            self.name, self.mod.program.funcs[self.name].node,
            None if cluster is None else _dim3(cluster, "cluster"))
        max_steps = _positive(max_steps, "max_steps")
        batch_threads = _positive(batch_threads, "batch_threads")
        self.max_call_depth = _positive(max_call_depth, "max_call_depth")
        problems = launch_problems(grid, block, cluster, target_number(self.mod.module.targets))
        if problems:
            raise errors.LaunchError("; ".join(problems))
        if any(g % c for g, c in zip(grid, cluster)):
            raise errors.LaunchError(f"grid {grid} is not a whole number of clusters {cluster}")
        if shared_mem < 0:
            raise errors.LaunchError("shared_mem must be >= 0")
        prog = self.mod.program
        self.grid_id += 1
        t0 = time.perf_counter()
        gmem = self.mod.gmem
        recorder = new_recorder(self, None if memory_report is True else memory_report) \
            if memory_report else None
        segs, param_seg = self._bind(args)
        self.trace = recorder
        try:
            stats = self._run(grid, block, cluster, shared_mem, param_seg, max_steps,
                              batch_threads, progress)
        finally:
            self.trace = None
            mine = {id(x[3]) for x in segs} | {id(param_seg)}
            gmem.segments = [s for s in gmem.segments if id(s) not in mine]
            gmem.bases = [s.base for s in gmem.segments]
            gmem.used -= sum(x[3].size for x in segs) + param_seg.size
        written = []
        for k, arr, raw, seg in segs:
            data = seg.data[:seg.size]
            if np.array_equal(data, raw):
                continue  # not written (or written with the same bytes): an input, left alone
            if k is not None:  # (a tensor map's array is no argument of its own)
                written.append(k)
            if arr.flags.c_contiguous:
                arr.reshape(-1).view(np.uint8)[:] = data
            else:
                arr[...] = data.view(arr.dtype).reshape(arr.shape)
        stats.written = tuple(written)
        stats.seconds = time.perf_counter() - t0
        self.stats = stats
        return stats if recorder is None else recorder.finish(stats)

    # ------------------------------------------------------------------ arguments
    def _bind(self, args):
        prog = self.mod.program
        plist = prog.kernel_params[self.name]
        if len(args) != len(plist):
            raise errors.LaunchError(f"kernel `{self.name}` takes {len(plist)} argument(s), got {len(args)}")
        size = max(1, max((o + s for _, o, s in plist), default=0))
        buf = np.zeros(_align_up(size, 32), np.uint8)
        segs = []
        gmem = self.mod.gmem
        for k, ((p, off, psize), a) in enumerate(zip(plist, args)):
            if isinstance(a, np.ndarray):
                if psize * 8 != prog.layout.bits:
                    raise errors.LaunchError(f"argument {k}: a NumPy array is passed as a pointer, but "
                                        f"parameter `{p.name}` is {p.type}{'[]' if p.dims else ''} "
                                        f"({psize} bytes)")
                if a.dtype.hasobject:
                    raise errors.LaunchError(f"argument {k}: an array of Python objects ({a.dtype}) has "
                                        "no bytes to pass to the kernel")
                raw = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
                # a read-only array (`setflags(write=False)`, a read-only memory map) is an
                # input: a store into it faults
                readonly = not a.flags.writeable
                name = f"argument {k} ({a.dtype}[{a.size}]{', read-only' if readonly else ''})"
                seg = gmem.alloc(raw.size, name, align=256, data=raw, readonly=readonly)
                segs.append((k, a, raw, seg))
                blob = seg.base.to_bytes(psize, "little")
            elif isinstance(a, (bytes, bytearray, np.void, TensorMap)):
                blob = bytes(a) if not isinstance(a, np.void) else a.tobytes()
                if len(blob) > psize:
                    raise errors.LaunchError(f"argument {k}: {len(blob)} bytes for parameter `{p.name}` "
                                        f"of {psize} bytes")
                blob = blob + b"\0" * (psize - len(blob))
            else:
                blob = _scalar_bytes(a, p, k)
            buf[off:off + psize] = np.frombuffer(blob, np.uint8)
        segs += bind_tensor_maps(args, segs, gmem)
        self.bound = segs
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
        ncl = [g // c for g, c in zip(grid, cluster)]
        n_ctas = math.prod(grid)
        lin = np.arange(spc)
        tx = (lin % block[0]).astype(np.uint32)
        ty = ((lin // block[0]) % block[1]).astype(np.uint32)
        tz = (lin // (block[0] * block[1])).astype(np.uint32)
        real = lin < nthreads
        per_batch = max(csize, (max(1, batch_threads // spc) // csize) * csize)
        steps = tinstr = 0
        self._first = 0
        # what one thread of a batch costs: registers, ids, masks, call depth, its .local and
        # its share of .shared; batches shrink to fit the memory budget
        per_thread = 64 + sum(prog.slot_width) // 8
        cost = per_thread + prog.local_size + 32 + (shared_size + 32) // spc + 1
        room = (self.mod.gmem.budget - self.mod.gmem.used) // (cost * spc)
        per_batch = max(csize, min(per_batch, room // csize * csize))
        for start in range(0, n_ctas, per_batch):
            ctas = _cta_coords(start, min(n_ctas, start + per_batch), ncl, cluster)
            nb = len(ctas)
            N = nb * spc
            batch_bytes = N * per_thread
            self.mod.gmem.charge(batch_bytes, f"registers of a batch of {N} threads")
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
                b.max_call_depth = self.max_call_depth
                alive = np.tile(real, nb)
                b.exited = ~alive
                b.schedule(fn.entry_pc, None if alive.all() else np.flatnonzero(alive))
                self._batch_first = start
                b.run()
                steps += b.steps
                tinstr += b.thread_instructions
            finally:
                sp.release()
                self.mod.gmem.used -= batch_bytes
        return LaunchStats(self.name, grid, block, n_ctas * nthreads, n_ctas * (spc // 32), n_ctas,
                           steps, tinstr, 0.0)

    def first_cta_linear(self, b):
        c = b.cta_coords
        return c[:, 0] + b.grid[0] * (c[:, 1] + b.grid[1] * c[:, 2])


def _cta_coords(first: int, stop: int, ncl, cluster) -> np.ndarray:
    """Grid coordinates of CTAs number first..stop-1 in launch order: clusters in x-fastest
    order, each cluster's CTAs by rank (x fastest); computed per batch, never for the whole grid."""
    i = np.arange(first, stop, dtype=np.int64)
    csize = cluster[0] * cluster[1] * cluster[2]
    cl, r = i // csize, i % csize
    cx, cy, cz = cl % ncl[0], (cl // ncl[0]) % ncl[1], cl // (ncl[0] * ncl[1])
    rx, ry, rz = r % cluster[0], (r // cluster[0]) % cluster[1], r // (cluster[0] * cluster[1])
    return np.stack([cx * cluster[0] + rx, cy * cluster[1] + ry, cz * cluster[2] + rz], axis=1)


def _scalar_bytes(a, p, k) -> bytes:
    t = p.type
    if p.dims:
        raise errors.LaunchError(f"argument {k}: parameter `{p.name}` is a {t} array; pass bytes or a "
                            f"structured NumPy scalar")
    w = ptxtypes.WIDTH.get(t)
    if w is None or w == 1:
        raise errors.LaunchError(f"argument {k}: unsupported parameter type {t}")
    nb = w // 8
    if isinstance(a, np.generic):
        if a.dtype.itemsize != nb:
            raise errors.LaunchError(f"argument {k}: {a.dtype} ({a.dtype.itemsize} bytes) for parameter "
                                f"`{p.name}` of type {t} ({nb} bytes)")
        # a bit-size parameter takes any value of its size; others want the same kind of number
        if t[1] != "b" and (a.dtype.kind == "f") != ptxtypes.is_float(t):
            what = "a floating-point" if a.dtype.kind == "f" else "an integer"
            raise errors.LaunchError(f"argument {k}: {what} value ({a.dtype}) for parameter `{p.name}` "
                                f"of type {t}")
        return a.tobytes()
    if isinstance(a, bool) or isinstance(a, int):
        if ptxtypes.is_float(t):
            return int(ptxtypes.float_bits(float(a), t)).to_bytes(nb, "little")
        lo = 0 if t[1] == "u" else -(1 << (w - 1))
        hi = (1 << (w - 1)) - 1 if t[1] == "s" else (1 << w) - 1
        if not lo <= a <= hi:
            raise errors.LaunchError(f"argument {k}: {a} does not fit parameter `{p.name}` of type {t} "
                                f"({lo} to {hi})")
        return (a & ((1 << w) - 1)).to_bytes(nb, "little")
    if isinstance(a, float):
        if not ptxtypes.is_float(t) and t[1] != "b":
            raise errors.LaunchError(f"argument {k}: float {a} for integer parameter `{p.name}` ({t})")
        ft = t if ptxtypes.is_float(t) else {2: ".f16", 4: ".f32", 8: ".f64"}[nb]
        return int(ptxtypes.float_bits(a, ft)).to_bytes(nb, "little")
    raise errors.LaunchError(f"argument {k}: cannot pass {type(a).__name__} to parameter `{p.name}`")
