"""ptxld's version, read from the installed distribution (pyproject.toml is where it is written)."""
from __future__ import annotations

from functools import cache


@cache
def version() -> str:
    # importlib.metadata reads the installed distribution's files: only when a version is asked
    # for (JSON/SARIF reports, --version), not on every start-up
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as distribution_version
    try:
        return distribution_version("ptxld")
    except PackageNotFoundError:
        return "0+unknown"
