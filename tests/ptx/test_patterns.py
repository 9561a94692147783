"""`ptxld.patterns`: the regular expressions compiled from programs an earlier run kept are the
patterns `re.compile` gives, and a missing, broken or foreign cache only costs time."""
from __future__ import annotations

import glob
import marshal
import os
import re
import subprocess
import sys

import pytest

from ptxld import patterns

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
SAMPLES = ["\tld.global.v4.f32 \t{%f1, %f2, %f3, %f4}, [%rd4+16];", "@!%p1 bra $L__BB0_2;",
           ".visible .entry k(.param .u64 k_param_0)", "add.s32 %r1, %r2, -0x10;", "", "}{;//",
           "  .reg .pred %p<3>;\n", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {...}"]


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """A new process: no programs read, the cache in a folder of the test's own."""
    monkeypatch.setattr(patterns, "_PROGRAMS", {})
    monkeypatch.setattr(patterns, "_state", {"path": None, "new": False})
    return tmp_path


def _new_process(folder):
    patterns._PROGRAMS.clear()
    patterns._state.update(path=None, new=False)
    patterns.keep_in(str(folder))


def _ptxld_patterns() -> list[re.Pattern]:
    """Every module-level pattern of the modules that compile theirs through `patterns`."""
    import importlib
    found = []
    for path in glob.glob(os.path.join(ROOT, "src", "ptxld", "**", "*.py"), recursive=True):
        text = open(path, encoding="utf-8").read()
        if "patterns.compile(" not in text or path.endswith("patterns.py"):
            continue
        rel = os.path.relpath(path, os.path.join(ROOT, "src"))[:-3].replace(os.sep, ".")
        module = importlib.import_module(rel.removesuffix(".__init__"))
        found += [v for v in vars(module).values() if isinstance(v, re.Pattern)]
    return found


def test_without_the_command_line_it_is_re_compile(fresh):
    p = patterns.compile(r"(?P<a>x+)|y", re.X)
    assert p is re.compile(r"(?P<a>x+)|y", re.X) and not patterns._state["new"]


def test_every_pattern_of_ptxld_from_a_kept_program_is_re_compiles(fresh):
    own = _ptxld_patterns()
    assert len(own) > 40
    patterns.keep_in(str(fresh))
    for p in own:
        patterns.compile(p.pattern, p.flags)  # worked out and kept
    patterns.save()
    assert len(glob.glob(str(fresh / "regex-*.marshal"))) == 1
    _new_process(fresh)
    assert len(patterns._PROGRAMS) == len({(p.pattern, p.flags) for p in own})
    for p in own:
        got = patterns.compile(p.pattern, p.flags)
        assert got is not re.compile(p.pattern, p.flags)  # built from the kept program
        assert got == p and got.groupindex == p.groupindex and got.groups == p.groups
        for s in SAMPLES:
            a, b = got.match(s), p.match(s)
            assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups()))
            assert got.findall(s) == p.findall(s)


def test_a_broken_or_refused_cache_only_costs_time(fresh):
    pattern = r"\s*(?P<name>%?[A-Za-z_$][\w$]*)\s*,"
    patterns.keep_in(str(fresh))
    patterns.compile(pattern)
    patterns.save()
    (path,) = glob.glob(str(fresh / "regex-*.marshal"))
    for garbage in (b"", b"\x00not marshal", marshal.dumps([1, 2, 3])):
        with open(path, "wb") as f:
            f.write(garbage)
        _new_process(fresh)
        assert patterns.compile(pattern) == re.compile(pattern)
    # a program the engine refuses (not a valid program): the pattern is compiled anew
    flags, code, groups, groupindex, indexgroup = patterns._PROGRAMS[(pattern, 0)]
    patterns._PROGRAMS[(pattern, 0)] = (flags, [999999] * len(code), groups, groupindex, indexgroup)
    assert patterns.compile(pattern) == re.compile(pattern)
    assert patterns._PROGRAMS[(pattern, 0)][1] == code  # kept again, right


def test_the_library_keeps_none(tmp_path):
    # (that the command line keeps them, and `--no-cache` not: tests/check/test_opcache.py)
    (tmp_path / "k.ptx").write_text(open(os.path.join(ROOT, "examples", "loads.ptx"), encoding="utf-8").read())
    env = dict(os.environ, PTXLD_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("PTXLD_NO_CACHE", None)
    library = subprocess.run([sys.executable, "-c", "import sys, ptxld; "
                              "sys.exit(len(ptxld.check(open(sys.argv[1]).read())) == 0)", str(tmp_path / "k.ptx")],
                             env=env, capture_output=True, text=True)
    assert library.returncode == 0 and not (tmp_path / "cache").exists()
