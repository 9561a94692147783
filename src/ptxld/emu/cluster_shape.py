"""The cluster shape of a launch, from the kernel's performance directives and the launch.

PTX ISA 11.4 (cluster dimension directives): `.reqnctapercluster X, Y, Z` fixes the number of
CTAs per cluster (what CUDA's `__cluster_dims__` emits, with `.explicitcluster`), so a launch
that gives no cluster runs in clusters of that shape and one that gives another shape fails, as
cudaLaunchKernelEx does; `.explicitcluster` requires a cluster shape from one of the two;
`.maxclusterrank N` bounds the CTAs per cluster of any launch.
"""
from __future__ import annotations

import math

from . import errors


def _ints(d) -> list[int]:
    out = []
    for a in d.args:
        try:
            out.append(int(str(a), 0))
        except ValueError:
            raise errors.LaunchError(f"{d.name} has a non-integer argument {a!r}") from None
    return out


def launch_cluster(kernel_name: str, fnode, requested):
    """(cluster shape, explicit?) for a launch of `fnode` with `requested` (a dim3 or None)."""
    required = explicit_directive = None
    max_rank = None
    for d in fnode.directives:
        if d.name == ".reqnctapercluster":
            v = _ints(d)
            required = tuple(v) + (1,) * (3 - len(v))
        elif d.name == ".explicitcluster":
            explicit_directive = True
        elif d.name == ".maxclusterrank":
            max_rank = _ints(d)[0]
    if requested is None:
        cluster = required or (1, 1, 1)
        if explicit_directive and required is None:
            raise errors.LaunchError(f"kernel `{kernel_name}` is declared .explicitcluster: the launch "
                                f"must give a cluster shape (cluster=...)")
    else:
        cluster = requested
        if required is not None and requested != required:
            raise errors.LaunchError(f"kernel `{kernel_name}` requires clusters of {required} "
                                f"(.reqnctapercluster); the launch asks for cluster={requested}")
    if max_rank is not None and math.prod(cluster) > max_rank:
        raise errors.LaunchError(f"kernel `{kernel_name}` allows at most {max_rank} CTAs per cluster "
                            f"(.maxclusterrank); cluster {cluster} has {math.prod(cluster)}")
    explicit = requested is not None or required is not None
    return cluster, explicit
