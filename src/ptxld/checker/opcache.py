"""What the checker works out once per distinct opcode, kept on disk between runs of `ptxld check`.

Every distinct opcode of a module (`ld.global.nc.v4.f32`, `mma.sync.aligned.m16n8k16...`) is
decoded against its instruction record, matched against the record's forms, and given an operand
plan (`records.py`) the first time it is met: 20-30 ms for the ~700 distinct opcodes of a big
module, paid again by each process of a parallel check, and the same in every run, since they
depend on the instruction records alone, never on the module. The command line keeps them in a
file (like ruff's cache), named by a fingerprint of ptxld's own source files, so that an edited or
upgraded ptxld never reads facts another version worked out.

Two kinds of facts are kept:
- of the records, per opcode: what its modifiers are, which forms it matches, its plan;
- verdicts, per module header (PTX ISA version, `.target`, `.address_size`) and settings
  (`--strict`, the rules enabled): the sets of the Checker named in VERDICT_SETS, which it
  already reuses within one module, since what passed once there passes everywhere in it: the
  opcodes whose opcode-level rules found nothing (`records.py`), the operand signatures (operand
  kinds and declared types, per opcode) that passed, and the plain loads (`ld... %r, [%rd+imm]`
  by opcode and register types: `ld.py` `plain_ld`) that passed every ld rule. A module with the
  same header and settings starts with them. An instruction's own operands are still read in
  every run: the registers it names, their declarations, a signature or load not seen before.
The file holds plain data (`marshal`: strings, numbers, tuples, dicts, frozensets), never code;
a file that cannot be read, or whose entries do not fit the records, is ignored.

`PTXLD_NO_CACHE=1` turns the cache off; `PTXLD_CACHE_DIR` puts it somewhere else than
`$XDG_CACHE_HOME/ptxld` (by default `~/.cache/ptxld`).
"""
from __future__ import annotations

import marshal
import os
import time
import zlib

try:
    import fcntl  # the processes of one check save at the same moment: one at a time
except ImportError:  # Windows: no lock; two saves at once may keep only one's new entries
    fcntl = None

from ..cachedir import directory, replace_file
from ..spec import decode as decoding
from ..spec import forms as matching
from ..spec.instructions import has_record
from . import records

FORMAT = 3
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the source folders whose code decides the facts kept (the records, the decoder, the plans, the
# rules and the load models they read)
_SOURCES = ("spec", os.path.join("spec", "instructions"), "checker", "ptx")
# the Checker's sets of what passed, kept as verdicts (see above)
VERDICT_SETS = ("clean_opcodes", "formless_opcodes", "quiet_opcodes", "clean_operands", "clean_plain_ld")

# garbage input can spell endless opcodes: a cache this full starts again
_MAX_ENTRIES = 50_000
# the cache files of other installs or versions of ptxld kept in the folder: those used within
# STALE_DAYS, at most MAX_FILES in all
STALE_DAYS = 30
MAX_FILES = 8
# module headers and settings with verdicts kept, and verdicts kept under one of them: more
# start again (a cache that only grows would cost more to read than it saves)
_MAX_CONTEXTS = 256
_MAX_VERDICTS = 100_000
# opcode -> its entry, marshalled on its own (read whole, a file of ~1,000 entries takes ~5 ms;
# each entry is read when its opcode is met), as read from the file and added at `save`
_ENTRIES: dict[str, bytes] = {}
# opcode -> its kind, for the opcodes this run worked out
_NEW: dict[str, int] = {}
# header and settings (`context`) -> the verdict sets (VERDICT_SETS order), as read and as this
# run found them
_VERDICTS: dict[str, tuple] = {}
_state = {"path": None, "read": 0, "verdicts": False, "changed": False}


def fingerprint() -> str:
    """A name for ptxld's code as it is now: the size and time of every source file that
    decides the facts kept (an edit, an upgrade or another install gives another name)."""
    items = []
    for folder in _SOURCES:
        try:
            with os.scandir(os.path.join(_PACKAGE, folder)) as found:
                for e in found:
                    if e.name.endswith(".py"):
                        st = e.stat()
                        items.append((folder, e.name, st.st_size, st.st_mtime_ns))
        except OSError:
            return ""
    items.sort()
    return f"{zlib.crc32(repr((_PACKAGE, items)).encode()):08x}"


def load() -> bool:
    """Read the cache for this version of ptxld (once per process); False if there is none.
    Call before the check starts (before a parallel check forks, so every process has it)."""
    where = directory()
    if where is None:
        return False
    key = fingerprint()
    if not key:
        return False
    path = os.path.join(where, f"opcodes-{FORMAT}-{key}.marshal")
    _state["path"] = path
    _state["verdicts"] = True
    got = _read(path)
    if got is None:
        return False
    try:  # used now: the file's time says when this install last used it (`_forget_stale`)
        os.utime(path)
    except OSError:
        pass
    entries, verdicts = got
    _ENTRIES.update(entries)
    _VERDICTS.update(verdicts)
    _state["read"] = len(_ENTRIES)
    return bool(_ENTRIES)


def _read(path: str) -> tuple[dict, dict] | None:
    """(opcode entries, verdicts) of a cache file, or None where it holds no such thing."""
    try:
        with open(path, "rb") as f:
            got = marshal.loads(f.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not (isinstance(got, tuple) and len(got) == 2 and isinstance(got[0], dict) and isinstance(got[1], dict)):
        return None
    verdicts = {k: v for k, v in got[1].items()
                if isinstance(k, str) and isinstance(v, tuple) and len(v) == len(VERDICT_SETS)
                and all(isinstance(x, frozenset) for x in v)}
    return got[0], verdicts


def stop_verdicts() -> None:
    """The command line's checks are done: later checks in this process (a program that ran the
    command line in-process, a test) take no verdicts, nor keep any."""
    _state["verdicts"] = False


def context(c) -> str:
    """What a verdict depends on besides the opcode or load: the module header and the settings."""
    m = c.module
    enabled = "all" if c.enabled is None else f"{zlib.crc32(','.join(sorted(c.enabled)).encode()):08x}"
    return repr((m.version, tuple(m.targets), m.address_size, c.strict, enabled))


def give_verdicts(c) -> None:
    """Start a check with what passed in earlier checks of modules with the same header and
    settings (command line only: nothing before `load`, or after `stop_verdicts`)."""
    if not _state["verdicts"]:
        return
    kept = _VERDICTS.get(context(c))
    if kept is not None:
        for name, passed in zip(VERDICT_SETS, kept):
            getattr(c, name).update(passed)


def keep_verdicts(c) -> None:
    """Keep what passed in a check, for `save`."""
    if not _state["verdicts"]:
        return
    key = context(c)
    kept = _VERDICTS.get(key)
    found = tuple(frozenset(getattr(c, name)) for name in VERDICT_SETS)
    if kept is not None:
        if all(f <= k for f, k in zip(found, kept)):
            return
        merged = tuple(f | k for f, k in zip(found, kept))
        if sum(map(len, merged)) <= _MAX_VERDICTS:  # else start this key again from this check
            found = merged
    _VERDICTS[key] = found
    _state["changed"] = True


def install(opcode: str) -> int | None:
    """Put the kept facts of `opcode` into the checker's per-process tables and return its kind
    (`checker._kind`), or None when nothing (usable) is kept for it."""
    blob = _ENTRIES.get(opcode)
    if blob is None:
        return None
    try:
        name, has_spec, name_end, modifiers, slots, others, repeated, kind, form_numbers, plan = \
            marshal.loads(blob)
        if has_spec and not has_record(name):
            return None
        # the record itself is read when first asked for (most opcodes never need it again)
        d = decoding.Decoded(opcode, name, decoding.RECORD_OF_NAME if has_spec else None, name_end)
        d.modifiers, d.slots, d.others, d.repeated = list(modifiers), dict(slots), list(others), list(repeated)
    except (ValueError, TypeError, IndexError, AttributeError, EOFError):
        return None  # an entry that does not fit today's records: work it out again
    decoding.remember(d)
    if form_numbers is not None:
        matching.remember_numbers(opcode, form_numbers)  # checked against the record when read
    if plan is not None:
        records.remember_plan(opcode, plan)
    return kind


def note(opcode: str, kind: int) -> None:
    """Keep the facts of an opcode worked out in this run (read back from the tables at `save`)."""
    if _state["path"] is not None and opcode not in _ENTRIES:
        _NEW[opcode] = kind


def save() -> None:
    """Write the cache when this run worked out opcodes it did not hold. Never fails: a cache
    that cannot be written is only slower."""
    path = _state["path"]
    if path is None or not (_NEW or _state["changed"]):
        return
    if len(_ENTRIES) + len(_NEW) > _MAX_ENTRIES:
        _ENTRIES.clear()
    for op, kind in _NEW.items():
        entry = _entry(op, kind)
        if entry is not None:
            _ENTRIES[op] = marshal.dumps(entry)
    _NEW.clear()
    _state["changed"] = False
    try:
        folder = os.path.dirname(path)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "opcodes.lock"), "wb") as lock:
            if fcntl is not None:
                fcntl.flock(lock, fcntl.LOCK_EX)
            _merge_and_write(path)
    except (OSError, ValueError):
        pass


def _merge_and_write(path: str) -> None:
    other = _read(path)  # what another process wrote meanwhile stays
    if other is not None and len(other[0]) + len(_ENTRIES) <= _MAX_ENTRIES:
        for op, entry in other[0].items():
            _ENTRIES.setdefault(op, entry)
        for key, theirs in other[1].items():
            mine = _VERDICTS.get(key)
            _VERDICTS[key] = theirs if mine is None else tuple(a | b for a, b in zip(mine, theirs))
    if len(_VERDICTS) > _MAX_CONTEXTS:
        _VERDICTS.clear()
    replace_file(path, marshal.dumps((_ENTRIES, _VERDICTS)))
    _forget_stale(path)


def _forget_stale(path: str) -> None:
    """Remove the files of other ptxld installs or versions not used for STALE_DAYS, and the
    least recently used beyond MAX_FILES. Several installs (a venv per project, an editable
    checkout beside a release) share the folder, each with its own file: removing every other
    file would make them take turns starting cold."""
    folder, mine = os.path.split(path)
    now = time.time()
    others = []
    for name in os.listdir(folder):
        if name.startswith("opcodes-") and name.endswith(".marshal") and name != mine:
            try:
                others.append((os.stat(os.path.join(folder, name)).st_mtime, name))
            except OSError:
                pass
    others.sort(reverse=True)  # most recently used first
    for i, (used, name) in enumerate(others):
        if i + 1 >= MAX_FILES or now - used > STALE_DAYS * 86400:
            try:
                os.remove(os.path.join(folder, name))
            except OSError:
                pass


def _entry(opcode: str, kind: int) -> tuple | None:
    """The facts of a decoded opcode as plain data (None: not decoded in this process)."""
    d = decoding.cached(opcode)
    if d is None:
        return None
    spec = d.spec
    found = matching.cached(opcode)
    form_numbers = None
    if found is not None and spec is not None:
        index = {id(f): i for i, f in enumerate(spec.forms)}
        form_numbers = tuple(index[id(f)] for f in found)
    plan = records.plan_entry(opcode)
    return (d.name, spec is not None, d.name_end, tuple(d.modifiers), dict(d.slots), tuple(d.others),
            tuple(d.repeated), kind, form_numbers, plan)
