"""`ptxld check` settings from a configuration file, found as ruff finds its own.

From the directory of the checked file (the working directory for standard input) upwards, the
first directory holding a `ptxld.toml`, or a `pyproject.toml` with a `[tool.ptxld]` table, gives
the settings (`ptxld.toml` first when a directory has both; a `pyproject.toml` without the
table is passed over). Keys: `select`, `ignore` (lists of rule codes or prefixes) and `strict`
(true: the rules of the PTX ISA text that ptxas does not enforce are errors).
"""
from __future__ import annotations

import os
import re

from .selection import SelectionError, selectors

KEYS = {"select": list, "ignore": list, "strict": bool}
# what any spelling of a `tool.ptxld` table or key must contain (`[tool.ptxld]`, `[tool."ptxld"]`,
# `tool.ptxld.select = ...`, or `ptxld = {...}` / `ptxld.select = ...` under `[tool]`)
# (compiled, and cached by `re`, where a pyproject.toml is found: start-up time)
_MENTIONS_TABLE = rb"""(?m)tool\s*\.\s*["']?ptxld\b|^\s*["']?ptxld["']?\s*[.=]"""


class ConfigError(ValueError):
    """A configuration file that cannot be read or holds a wrong key; says which file and why."""


class Settings:
    __slots__ = ("path", "select", "ignore", "strict")

    def __init__(self, path: str | None = None, select=None, ignore=None, strict: bool = False):
        self.path = path        # the file they come from (None: defaults)
        self.select = select    # None: not given
        self.ignore = ignore
        self.strict = strict


def find_config(start: str) -> str | None:
    """The configuration file that applies to files in directory `start`, or None."""
    d = os.path.abspath(start)
    while True:
        own = os.path.join(d, "ptxld.toml")
        if os.path.isfile(own):
            return own
        py = os.path.join(d, "pyproject.toml")
        if os.path.isfile(py) and _has_ptxld_table(py):
            return py
        up = os.path.dirname(d)
        if up == d:
            return None
        d = up


def _has_ptxld_table(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            if not re.search(_MENTIONS_TABLE, f.read()):  # most pyproject.toml files: not parsed
                return False
    except OSError:
        return False
    try:
        return "ptxld" in _load(path).get("tool", {})
    except ConfigError:
        # a broken pyproject.toml that mentions ptxld is an error; one that does not is someone else's
        with open(path, "rb") as f:
            if b"[tool.ptxld]" in f.read():
                raise
        return False


def _load(path: str) -> dict:
    import tomllib  # start-up time: TOML is read only where a configuration file is found
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read it: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None


def load_settings(path: str) -> Settings:
    """The settings in a `ptxld.toml` (top level) or a `pyproject.toml` (`[tool.ptxld]`)."""
    data = _load(path)
    if os.path.basename(path) == "pyproject.toml":
        data = data.get("tool", {}).get("ptxld", {})
        where = f"{path} [tool.ptxld]"
    else:
        where = path
    for key, value in data.items():
        kind = KEYS.get(key)
        if kind is None:
            raise ConfigError(f"{where}: unknown key `{key}` (known: {', '.join(KEYS)})")
        if not isinstance(value, kind) or (kind is list and not all(isinstance(v, str) for v in value)):
            want = "a list of rule codes or prefixes" if kind is list else "true or false"
            raise ConfigError(f"{where}: `{key}` must be {want}")
    try:
        select = selectors(data["select"], where) if "select" in data else None
        ignore = selectors(data.get("ignore"), where)
    except SelectionError as e:
        raise ConfigError(str(e)) from None
    return Settings(path, select, ignore, data.get("strict", False))


def settings_for(file: str, config: str | None = None, isolated: bool = False,
                 cache: dict | None = None) -> Settings:
    """The settings for one checked file: `config` if given, else the file found upwards from
    it (`-`: from the working directory); defaults when `isolated` or when there is none."""
    if isolated:
        return Settings()
    if config is None:
        config = find_config(os.getcwd() if file == "-" else os.path.dirname(os.path.abspath(file)))
        if config is None:
            return Settings()
    if cache is not None and config in cache:
        return cache[config]
    got = load_settings(config)
    if cache is not None:
        cache[config] = got
    return got
