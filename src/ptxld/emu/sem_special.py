"""Special registers (PTX ISA chapter 10): readers fn(batch, idx) -> raw bits."""
from __future__ import annotations

import time

import numpy as np

from .handlers import CompileError

_AXES = {"x": 0, "y": 1, "z": 2, None: 0, "w": 3}


def special_reader(name: str, comp: str | None):
    axis = _AXES.get(comp)
    if axis is None:
        raise CompileError(f"`{name}.{comp}` has no component {comp}")

    def per_thread(arr_of):
        return lambda b, idx: (arr_of(b) if idx is None else arr_of(b)[idx]).astype(np.uint32)

    def uniform(val_of, dtype=np.uint32):
        return lambda b, idx: np.full(b.count(idx), val_of(b), dtype)

    if name == "%tid":
        if axis == 3:
            return uniform(lambda b: 0)
        return lambda b, idx: b.tid[axis] if idx is None else b.tid[axis][idx]
    if name == "%ntid":
        return uniform(lambda b: b.block[axis] if axis < 3 else 0)
    if name == "%ctaid":
        if axis == 3:
            return uniform(lambda b: 0)
        return per_thread(lambda b: b.cta_coords[b.cta_of, axis])
    if name == "%nctaid":
        return uniform(lambda b: b.grid[axis] if axis < 3 else 0)
    if name == "%laneid":
        return per_thread(lambda b: np.arange(b.N) % 32)
    if name == "%warpid":
        return per_thread(lambda b: (np.arange(b.N) % b.spc) // 32)
    if name == "%nwarpid":
        return uniform(lambda b: b.spc // 32)
    if name == "%smid":
        return per_thread(lambda b: b.launch.first_cta_linear(b)[b.cta_of] % 132)
    if name == "%nsmid":
        return uniform(lambda b: 132)
    if name in ("%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt"):
        kind = name[-2:]

        def lanemask(b, idx):
            lane = (np.arange(b.N) if idx is None else idx) % 32
            one = np.left_shift(np.uint64(1), lane.astype(np.uint64))
            full = np.uint64(0xFFFFFFFF)
            m = {"eq": one, "lt": one - np.uint64(1), "le": (one << np.uint64(1)) - np.uint64(1),
                 "ge": full & ~(one - np.uint64(1)), "gt": full & ~((one << np.uint64(1)) - np.uint64(1))}[kind]
            return (m & full).astype(np.uint32)
        return lanemask
    if name in ("%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi"):
        def clock(b, idx):
            if name.startswith("%clock"):
                v = b.steps + 1000
            else:
                v = time.time_ns()
            if name.endswith("hi"):
                v >>= 32
            dt = np.uint64 if name in ("%clock64", "%globaltimer") else np.uint32
            return np.full(b.count(idx), v & (2**64 - 1 if dt is np.uint64 else 0xFFFFFFFF), dt)
        return clock
    if name == "%gridid":
        return uniform(lambda b: b.launch.grid_id, np.uint64)
    if name == "%current_graph_exec":
        return uniform(lambda b: 0, np.uint64)
    if name == "%cluster_ctarank":
        return per_thread(lambda b: b.sp.rank_of[b.cta_of])
    if name == "%cluster_nctarank":
        return uniform(lambda b: b.sp.cluster_size)
    if name == "%cluster_ctaid":
        return per_thread(lambda b: b.cta_coords[b.cta_of, axis] % b.cluster[axis] if axis < 3 else 0 * b.cta_of)
    if name == "%cluster_nctaid":
        return uniform(lambda b: b.cluster[axis] if axis < 3 else 0)
    if name == "%clusterid":
        return per_thread(lambda b: b.cta_coords[b.cta_of, axis] // b.cluster[axis] if axis < 3 else 0 * b.cta_of)
    if name == "%nclusterid":
        return uniform(lambda b: b.grid[axis] // b.cluster[axis] if axis < 3 else 0)
    if name == "%is_explicit_cluster":
        return lambda b, idx: np.full(b.count(idx), b.launch.explicit_cluster, bool)
    if name == "%dynamic_smem_size":
        return uniform(lambda b: b.dyn_smem)
    if name in ("%total_smem_size", "%aggr_smem_size"):
        return uniform(lambda b: b.sp.shared_size)
    if name.startswith(("%reserved_smem", "%envreg", "%pm")):
        return uniform(lambda b: 0, np.uint64 if name.endswith("_64") else np.uint32)
    raise CompileError(f"special register `{name}` is not supported")
