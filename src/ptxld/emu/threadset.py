"""Sets of threads as the scheduler keeps them: a sorted array of thread indices, or None for
every thread of the batch."""
from __future__ import annotations

import numpy as np


def merge(a, b, n):
    """The union of two disjoint thread sets of a batch of `n` threads."""
    if a is None or b is None:
        raise AssertionError("merging a full group")
    m = np.concatenate((a, b))
    m.sort(kind="stable")
    return None if len(m) == n else m
