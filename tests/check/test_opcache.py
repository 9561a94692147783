"""The per-opcode cache of `ptxld check` (checker/opcache.py): what it gives back is exactly what
the checker works out without it, and a missing, broken or stale cache only costs time."""
from __future__ import annotations

import glob
import json
import marshal
import os

import pytest

from ptxld import checker
from ptxld.checker import check_source, opcache, records
from ptxld.checker.cli import _check_all
from ptxld.spec import decode as decoding, forms as matching
from ptxld.spec.decode import _decode

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
KERNEL_FILES = sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", "ptx", "*", "*.ptx")))


def _forget_in_process() -> None:
    """A new process: nothing worked out yet (the tables opcache fills and the checker reads)."""
    decoding._CACHE.clear()
    matching._MATCHES.clear()
    matching._NUMBERS.clear()
    records._PLANS.clear()
    checker._KIND_OF.clear()


def _forget_the_file() -> None:
    """A new process: the cache file not read yet."""
    opcache._ENTRIES.clear()
    opcache._VERDICTS.clear()
    opcache._state.update(path=None, read=0, verdicts=False, changed=False)


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setattr("ptxld.checker.cli.PARALLEL_MIN_BYTES", 10**12)  # one process: its tables
    monkeypatch.setenv("PTXLD_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("PTXLD_NO_CACHE", raising=False)
    monkeypatch.setattr(opcache, "_ENTRIES", {})
    monkeypatch.setattr(opcache, "_NEW", {})
    monkeypatch.setattr(opcache, "_VERDICTS", {})
    monkeypatch.setattr(opcache, "_state", {"path": None, "read": 0, "verdicts": False, "changed": False})
    _forget_in_process()
    yield tmp_path
    _forget_in_process()


def _planted(text: str) -> str:
    # errors the opcode-level rules find, so that opcodes with diagnostics are kept too
    return (text.replace("ld.global.f32", "ld.global.zz.f32", 2).replace("add.s32", "add.sat.u32", 2)
            .replace("mov.u32", "mov.v8.u32", 1))


def _run(texts):
    return [[(d.code, d.line, d.column, d.message) for d in diags]
            for diags in _check_all([(f"f{i}.ptx", t) for i, t in enumerate(texts)],
                                    [(False, None)] * len(texts))]


def test_every_kernel_file_checks_the_same_from_the_cache(fresh_cache):
    assert len(KERNEL_FILES) > 40
    texts = []
    for path in KERNEL_FILES:
        text = open(path, encoding="utf-8").read()
        texts += [text, _planted(text)]
    cold = _run(texts)  # works every opcode out and writes the cache
    files = [n for n in os.listdir(fresh_cache) if n.endswith(".marshal")]
    assert len(files) == 1 and files[0].startswith("opcodes-")
    kept = dict(opcache._ENTRIES)
    assert len(kept) > 1000
    _forget_in_process()
    _forget_the_file()
    warm = _run(texts)  # reads the cache: no opcode is worked out again
    assert opcache._state["read"] == len(kept) and not opcache._NEW
    assert warm == cold
    assert any(cold) and any(code == "PTX0803" for diags in cold for code, *_ in diags)
    # and what was installed is what the decoder, the form matcher and the planner give
    installed = dict(decoding._CACHE)
    assert len(installed) > 1000
    for opcode, d in installed.items():
        fresh = _decode(opcode)
        assert (d.name, d.spec, d.name_end, d.modifiers, d.slots, d.others, d.repeated) == \
               (fresh.name, fresh.spec, fresh.name_end, fresh.modifiers, fresh.slots, fresh.others,
                fresh.repeated), opcode
    found = dict(matching._MATCHES)
    plans = dict(records._PLANS)
    _forget_in_process()
    for opcode, forms in found.items():
        assert matching.matching_forms(decoding.decode(opcode)) == forms, opcode
    for opcode, plan in plans.items():
        d = decoding.decode(opcode)
        assert records._make_plan(d, matching.matching_forms(d)) == plan, opcode


def test_a_broken_cache_file_is_ignored_and_rewritten(fresh_cache):
    text = open(KERNEL_FILES[0], encoding="utf-8").read()
    expected = _run([text])
    path = os.path.join(fresh_cache, *[n for n in os.listdir(fresh_cache) if n.endswith(".marshal")])
    for garbage in (b"", b"\x00not marshal", b"\xe9" * 100, bytes(range(256))):
        with open(path, "wb") as f:
            f.write(garbage)
        _forget_in_process()
        _forget_the_file()
        assert _run([text]) == expected
        assert os.path.getsize(path) > 1000  # written again, whole


def test_entries_that_do_not_fit_the_records_are_worked_out_again(fresh_cache):
    text = open(KERNEL_FILES[0], encoding="utf-8").read()
    expected = _run([text])
    # an entry naming forms the record does not have, or a record that does not exist
    for opcode, blob in list(opcache._ENTRIES.items()):
        e = marshal.loads(blob)
        if e[1]:
            opcache._ENTRIES[opcode] = marshal.dumps(e[:8] + ((10**6,),) + e[9:])
    opcache._ENTRIES["add.s32"] = marshal.dumps(("nosuch.record", True, 3, (), {}, (), (), 4, None, None))
    opcache._ENTRIES["add.s64"] = b"\x00 not marshal"
    _forget_in_process()
    assert [[(d.code, d.line, d.column, d.message) for d in check_source(text, filename="f0.ptx")]] == expected


def test_an_unwritable_cache_folder_only_costs_time(fresh_cache, monkeypatch):
    blocker = fresh_cache / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("PTXLD_CACHE_DIR", str(blocker / "below"))
    text = open(KERNEL_FILES[0], encoding="utf-8").read()
    assert _run([text]) == [[(d.code, d.line, d.column, d.message)
                             for d in check_source(text, filename="f0.ptx")]]


def test_turned_off_and_elsewhere(monkeypatch, tmp_path):
    monkeypatch.setenv("PTXLD_NO_CACHE", "1")
    assert opcache.directory() is None
    monkeypatch.setenv("PTXLD_NO_CACHE", "0")
    monkeypatch.setenv("PTXLD_CACHE_DIR", str(tmp_path))
    assert opcache.directory() == str(tmp_path)
    monkeypatch.delenv("PTXLD_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert opcache.directory() == str(tmp_path / "xdg" / "ptxld")


def test_the_cache_is_named_by_the_code_that_made_it(monkeypatch, tmp_path):
    # a copy of the source folders the facts come from: editing one file renames the cache
    for folder in opcache._SOURCES:
        os.makedirs(tmp_path / folder, exist_ok=True)
        (tmp_path / folder / "a.py").write_text("x = 1\n")
    monkeypatch.setattr(opcache, "_PACKAGE", str(tmp_path))
    first = opcache.fingerprint()
    assert first and first == opcache.fingerprint()
    (tmp_path / "spec" / "a.py").write_text("x = 22\n")
    assert opcache.fingerprint() != first
    os.utime(tmp_path / "checker" / "a.py", ns=(1, 1))
    assert len({first, opcache.fingerprint()}) == 2


def test_the_processes_of_a_parallel_check_keep_all_they_worked_out(fresh_cache, monkeypatch):
    # both processes save as they end, at the same moment: neither loses the other's opcodes
    monkeypatch.setattr("ptxld.checker.cli.PARALLEL_MIN_BYTES_ONE", 0)
    monkeypatch.setattr("ptxld.checker.parallel.MIN_BYTES", 0)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    sm90 = [open(p, encoding="utf-8").read() for p in KERNEL_FILES if os.sep + "sm_90" + os.sep in p]
    text = sm90[0] + "".join(t.split(".address_size 64", 1)[1].replace(".entry ", f".entry m{i}_")
                             for i, t in enumerate(sm90[1:]))
    from ptxld.ptx.parser import parse
    opcodes = {ins.opcode for ins in parse(text, eager=False).instructions}
    assert len(opcodes) > 200
    expected = _run([text])
    for _ in range(3):  # every run: each process saves what it alone met
        _forget_in_process()
        _forget_the_file()
        assert _run([text]) == expected
    opcache._ENTRIES.clear()
    assert opcache.load() and opcodes <= opcache._ENTRIES.keys()


def test_the_library_writes_no_cache(fresh_cache):
    # only the command line keeps a cache: `check_source` leaves the disk alone
    check_source(open(KERNEL_FILES[0], encoding="utf-8").read())
    assert os.listdir(fresh_cache) == [] and not opcache._NEW


def test_the_command_line_writes_and_reads_it_and_no_cache_leaves_it_alone(tmp_path):
    import subprocess
    import sys
    bad = _planted(open(KERNEL_FILES[0], encoding="utf-8").read())
    (tmp_path / "k.ptx").write_text(bad)
    env = dict(os.environ, PTXLD_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("PTXLD_NO_CACHE", None)

    def check(*extra):
        return subprocess.run([sys.executable, "-m", "ptxld.cli", "check", "--format", "json", *extra,
                               str(tmp_path / "k.ptx")], env=env, capture_output=True, text=True)
    off = check("--no-cache")
    assert off.returncode == 1 and not (tmp_path / "cache").exists()
    cold, warm = check(), check()
    kept = os.listdir(tmp_path / "cache")
    # the opcode cache, and the compiled regular expressions (ptxld/patterns.py)
    assert any(n.startswith("opcodes-") for n in kept) and any(n.startswith("regex-") for n in kept)
    assert cold.stdout == warm.stdout == off.stdout and cold.returncode == warm.returncode == 1
    assert json.loads(warm.stdout)


# Operand- and header-level mistakes in instructions whose opcodes (and plain loads) a check of
# the clean kernel files found clean: the verdicts kept for those must not hide them.
_MISTAKES = [
    (r"(add\.s32\s+%r\d+,\s*)%r\d+", r"\1%rd1"),                      # a 64-bit register in a .s32 add
    (r"(ld\.global(?:\.nc)?\.f32\s+%f\d+,\s*\[)%rd", r"\1%r"),         # a 32-bit address
    (r"(ld\.global(?:\.nc)?\.u32\s+)%r(\d)", r"\1%rd\2"),               # a destination of another size
    (r"(ld\.param\.u64\s+)%rd(\d)", r"\1%r\2"),                         # a parameter into a 32-bit register
    (r"(mov\.u32\s+%r\d+,\s*%tid)\.x", r"\1.q"),                      # a special register's field
    (r"(setp\.\w+\.s32\s+)%p\d+", r"\1%r1"),                           # a register where a predicate goes
    (r"(cvta\.to\.global\.u64\s+%rd\d+,\s*)%rd\d+", r"\1%r1"),
    (r"(st\.global\.u32\s+\[)%rd", r"\1%r"),
    (r"(mma\.sync\.aligned[^;{]*)\{[^}]*\},", r"\1"),                  # an operand fewer
    (r"(bra(?:\.uni)?\s+)\$", r"\1$nosuch"),                           # a label that is not there
    (r"\.target\s+sm_\w+", ".target sm_50"),                           # another header: other verdicts
    (r"\.version\s+\d+\.\d+", ".version 6.0"),
]


@pytest.mark.parametrize("every", [7, pytest.param(1, marks=pytest.mark.slow)])
def test_verdicts_hide_no_mistake_in_other_modules(fresh_cache, every):
    """Each mistake planted in every kernel file it fits (`-m slow`), or in every `every`-th of
    them: the command line, with the verdicts of all the clean files, reports what the library
    reports without any."""
    import re
    clean = [open(p, encoding="utf-8").read() for p in KERNEL_FILES]
    _run(clean)  # keeps the verdicts of every clean kernel file
    assert len(opcache._VERDICTS) >= 3 and all(any(sets) for sets in opcache._VERDICTS.values())
    mutants = []
    for pattern, repl in _MISTAKES:
        changed = [m for m in (re.sub(pattern, repl, t, count=1) for t in clean) if m not in clean]
        assert changed, pattern
        mutants += changed[::every]
    for strict in (False, True):
        _forget_in_process()
        _forget_the_file()
        with_verdicts = [[(d.code, d.line, d.column, d.message) for d in diags]
                         for diags in _check_all([(f"f{i}.ptx", t) for i, t in enumerate(mutants)],
                                                 [(strict, None)] * len(mutants))]
        assert not opcache._state["verdicts"]  # the library's checks below take none
        without = [[(d.code, d.line, d.column, d.message) for d in check_source(t, filename=f"f{i}.ptx",
                                                                                   strict=strict)]
                   for i, t in enumerate(mutants)]
        assert with_verdicts == without
        assert sum(1 for diags in without if any(d[0] != "PTX0000" for d in diags)) > len(mutants) * 0.9


def test_verdicts_are_kept_per_header_and_settings(fresh_cache):
    text = next(open(p, encoding="utf-8").read() for p in KERNEL_FILES if os.sep + "sm_90" + os.sep in p)
    _run([text])
    assert len(opcache._VERDICTS) == 1
    older = text.replace(".target sm_90", ".target sm_80", 1)
    _check_all([("a.ptx", older)], [(False, None)])
    _check_all([("a.ptx", text)], [(True, None)])
    _check_all([("a.ptx", text)], [(False, frozenset({"PTX0801"}))])
    keys = list(opcache._VERDICTS)
    assert len(keys) == 4 and len(set(keys)) == 4
    # and what a check under one key kept is given to a check under that key only
    from ptxld.checker.context import Checker
    from ptxld.ptx.parser import parse
    opcache.load()
    c = Checker(parse(text, eager=False), False, None)
    opcache.give_verdicts(c)
    assert c.clean_opcodes and c.clean_plain_ld
    c = Checker(parse(text.replace(".version", ".version 1.0 //", 1), eager=False), False, None)
    opcache.give_verdicts(c)
    assert not c.clean_opcodes and not c.clean_plain_ld
    opcache.stop_verdicts()


def test_the_verdicts_of_one_key_start_again_when_too_many(fresh_cache, monkeypatch):
    from ptxld.checker.context import Checker
    from ptxld.ptx.parser import parse
    text = open(KERNEL_FILES[0], encoding="utf-8").read()
    monkeypatch.setattr(opcache, "_MAX_VERDICTS", 10)
    opcache.load()
    checks = []
    for extra in ("a", "b"):
        c = Checker(parse(text, eager=False), False, None)
        c.clean_opcodes.update({f"{extra}{i}" for i in range(8)})
        opcache.keep_verdicts(c)
        checks.append(c)
    (kept,) = opcache._VERDICTS.values()
    assert kept[opcache.VERDICT_SETS.index("clean_opcodes")] == frozenset(checks[1].clean_opcodes)
    opcache.stop_verdicts()


def test_two_installs_keep_their_own_files_and_stale_ones_go(fresh_cache, monkeypatch):
    # another install's (or version's) file in the folder: kept while it is used, so that two
    # installs checking in turn both run warm; removed when unused for STALE_DAYS, or when
    # more than MAX_FILES files are there (the least recently used first)
    import time
    text = open(KERNEL_FILES[0], encoding="utf-8").read()
    other = fresh_cache / "opcodes-3-0000other.marshal"
    other.write_bytes(marshal.dumps(({}, {})))
    _run([text])
    mine = [n for n in os.listdir(fresh_cache) if n.endswith(".marshal") and "other" not in n]
    assert len(mine) == 1 and other.exists()
    old = time.time() - (opcache.STALE_DAYS + 1) * 86400
    os.utime(other, (old, old))
    extra = []
    for i in range(opcache.MAX_FILES + 2):
        f = fresh_cache / f"opcodes-3-{i:08x}.marshal"
        f.write_bytes(b"")
        os.utime(f, (time.time() - 100 * i, time.time() - 100 * i))
        extra.append(f)
    _forget_in_process()
    _forget_the_file()
    _run([_planted(text)])  # something new to save
    left = sorted(n for n in os.listdir(fresh_cache) if n.endswith(".marshal"))
    assert not other.exists() and mine[0] in left and len(left) == opcache.MAX_FILES
    assert [f.name for f in extra[:opcache.MAX_FILES - 1]] == sorted(n for n in left if n != mine[0])
