"""Where the command line keeps what it can reuse between runs (like ruff's `.ruff_cache`, but per
user): the checker's opcode cache (`checker/opcache.py`) and the compiled regular expressions
(`patterns.py`). The library never reads or writes it."""
from __future__ import annotations

import os


def replace_file(path: str, data: bytes) -> None:
    """Write `path` whole or not at all (a reader never sees half a file): a file of this
    process's own beside it, then renamed over it."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def directory() -> str | None:
    """`$PTXLD_CACHE_DIR`, else `$XDG_CACHE_HOME/ptxld` (`~/.cache/ptxld`); None when
    `PTXLD_NO_CACHE` turns the cache off."""
    if os.environ.get("PTXLD_NO_CACHE", "") not in ("", "0"):
        return None
    where = os.environ.get("PTXLD_CACHE_DIR")
    if where:
        return where
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ptxld")
