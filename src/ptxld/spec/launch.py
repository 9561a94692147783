"""CUDA launch limits per target: the largest grid, block and cluster a kernel launch may use.

Source: the CUDA C++ Programming Guide, "Compute Capabilities" table (technical specifications
per compute capability) and "Thread Block Clusters". The limits have been the same for every
target ptxas 13.0 compiles for (sm_75 and newer), except clusters, which need sm_90.
"""
from __future__ import annotations

import re

MAX_GRID = (2**31 - 1, 65535, 65535)      # CTAs per grid dimension x, y, z
MAX_BLOCK = (1024, 1024, 64)              # threads per block dimension x, y, z
MAX_BLOCK_THREADS = 1024                  # threads per block in total
CLUSTER_MIN_SM = 90                       # thread block clusters: sm_90 and newer
MAX_CLUSTER_CTAS_PORTABLE = 8             # a cluster size every sm_90+ GPU runs
MAX_CLUSTER_CTAS = 16                     # with the non-portable cluster size opt-in

_SM = re.compile(r"(?:sm|compute)_(\d+)")


def target_number(targets: list[str] | tuple[str, ...]) -> int | None:
    """The compute capability number of a module's `.target` list (`sm_90a` -> 90), if any."""
    for t in targets:
        m = _SM.match(t)
        if m:
            return int(m.group(1))
    return None


def launch_problems(grid: tuple, block: tuple, cluster: tuple, sm: int | None) -> list[str]:
    """Why a launch of these dimensions is outside CUDA's limits for target `sm` (empty: none)."""
    out = []
    for axis, n, top in zip("xyz", grid, MAX_GRID):
        if n > top:
            out.append(f"grid {axis} = {n} is above CUDA's limit of {top}")
    for axis, n, top in zip("xyz", block, MAX_BLOCK):
        if n > top:
            out.append(f"block {axis} = {n} is above CUDA's limit of {top}")
    threads = block[0] * block[1] * block[2]
    if threads > MAX_BLOCK_THREADS:
        out.append(f"block {tuple(block)} has {threads} threads; CUDA's limit is {MAX_BLOCK_THREADS}")
    ctas = cluster[0] * cluster[1] * cluster[2]
    if ctas > 1:
        if sm is not None and sm < CLUSTER_MIN_SM:
            out.append(f"clusters need sm_{CLUSTER_MIN_SM} or newer; the module targets sm_{sm}")
        elif ctas > MAX_CLUSTER_CTAS:
            out.append(f"cluster {tuple(cluster)} has {ctas} CTAs; CUDA's limit is "
                       f"{MAX_CLUSTER_CTAS} ({MAX_CLUSTER_CTAS_PORTABLE} portable)")
    return out
