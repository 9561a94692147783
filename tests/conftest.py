"""Tests marked `slow` (exhaustive sweeps, the full differential comparison) run only when asked
for with `-m slow` (or a marker expression naming `slow`); the default run takes their fixed
samples."""
from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config, items):
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
