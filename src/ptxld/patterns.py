"""The regular expressions of ptxld's grammar, compiled once per Python version.

The scanner, the operand grammar and the rules are a few dozen regular expressions (the operand
list alone is 941 characters). Python compiles each one in pure Python at every start: 8-10 ms
of the time `ptxld check` spends before it can start checking, more than any other part of its
start-up. `compile` is `re.compile`; after `keep_in(folder)` (the command line calls it, the
library never does) it also keeps what Python's regex compiler made of each pattern, the
program its regex engine runs, in a file of that folder, and the next run hands the kept program
to the engine instead of compiling the pattern again.

A kept program is taken from Python's own compiler and used only by the same Python (the file is
named by the interpreter's version and its regex engine's version); it is kept only when the
engine, given it, builds a pattern equal to `re.compile`'s (same pattern, flags and program),
and the engine checks a program it is given before running it. Anything unexpected (another
Python's compiler internals, a file that cannot be read, a program the engine refuses) falls
back to `re.compile`: the cache changes the time, never the pattern.
"""
from __future__ import annotations

import marshal
import os
import re
import sys

from .cachedir import replace_file

try:  # Python's own regex compiler and engine (CPython 3.11+); elsewhere only `re.compile`
    import _sre
    from re import _compiler, _parser
except ImportError:  # pragma: no cover - another Python implementation
    _sre = None

# (pattern, flags) -> the engine's arguments for it: (flags, program, groups, groupindex, indexgroup)
_PROGRAMS: dict = {}
# ptxld has ~150 patterns; more are those of other versions of ptxld: start again
_MAX_PROGRAMS = 2000
_state = {"path": None, "new": False}


def _file_name() -> str:
    return f"regex-{sys.implementation.cache_tag}-{sys.hexversion:x}-{_sre.MAGIC}-{_sre.CODESIZE}.marshal"


def keep_in(folder: str | None) -> None:
    """Read the programs kept in `folder` (None: do nothing), and keep new ones there (`save`)."""
    if folder is None or _sre is None:
        return
    path = os.path.join(folder, _file_name())
    _state["path"] = path
    try:
        with open(path, "rb") as f:
            got = marshal.loads(f.read())
    except (OSError, EOFError, ValueError, TypeError):
        return
    if isinstance(got, dict):
        _PROGRAMS.update(got)


def compile(pattern: str, flags: int = 0) -> re.Pattern:  # noqa: A001 - re.compile's name, on purpose
    """`re.compile(pattern, flags)`, from a kept program where there is one (see above)."""
    if _state["path"] is None:
        return re.compile(pattern, flags)
    key = (pattern, int(flags))
    program = _PROGRAMS.get(key)
    if program is not None:
        try:
            return _sre.compile(pattern, *program)
        except Exception:  # noqa: BLE001 - a program this engine refuses: compile the pattern
            del _PROGRAMS[key]
    compiled = re.compile(pattern, flags)
    program = _program(pattern, int(flags), compiled)
    if program is not None:
        _PROGRAMS[key] = program
        _state["new"] = True
    return compiled


def _program(pattern: str, flags: int, compiled: re.Pattern) -> tuple | None:
    """What `re._compiler.compile` hands the engine for `pattern`, as plain data; None where that
    is not a pattern equal to `compiled`."""
    try:
        parsed = _parser.parse(pattern, flags)
        code = [int(op) for op in _compiler._code(parsed, flags)]
        groupindex = {str(k): int(v) for k, v in parsed.state.groupdict.items()}
        indexgroup = [None] * parsed.state.groups
        for name, i in groupindex.items():
            indexgroup[i] = name
        program = (int(flags | parsed.state.flags), code, parsed.state.groups - 1, groupindex,
                   tuple(indexgroup))
        again = _sre.compile(pattern, *program)
    except Exception:  # noqa: BLE001 - the compiler's internals are not what this module knows
        return None
    return program if again == compiled and again.groupindex == compiled.groupindex else None


def save() -> None:
    """Write the programs compiled in this run that were not kept yet. Never fails: a cache that
    cannot be written is only slower."""
    path = _state["path"]
    if path is None or not _state["new"]:
        return
    _state["new"] = False
    if len(_PROGRAMS) > _MAX_PROGRAMS:
        _PROGRAMS.clear()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        replace_file(path, marshal.dumps(_PROGRAMS))
    except (OSError, ValueError):
        pass
