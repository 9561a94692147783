"""Tests marked `slow` (exhaustive sweeps, the full differential comparison) run only when asked
for with `-m slow` (or a marker expression naming `slow`); the default run takes their fixed
samples."""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest

# `ptxld check` keeps what it works out per opcode in a cache folder (checker/opcache.py): the
# tests' runs keep theirs in a folder of their own, not in the user's ~/.cache
if "PTXLD_CACHE_DIR" not in os.environ:
    _CACHE = tempfile.mkdtemp(prefix="ptxld-test-cache-")
    os.environ["PTXLD_CACHE_DIR"] = _CACHE
    atexit.register(shutil.rmtree, _CACHE, True)


def pytest_collection_modifyitems(config, items):
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
