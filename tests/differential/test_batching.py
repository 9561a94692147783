"""The batch runner recovers each case's own verdict: assembled together or one by one, every case
gets the same verdict and the same errors. Checked with a stand-in for ptxas that behaves as
ptxas does (shared/spec/ptxas-vs-seeds.md): errors reported per line, a fatal error stops
reading, later-phase errors only when the whole module passed the first phase, fatal errors
without a line, SIGSEGV. No NVIDIA tool needed."""
from __future__ import annotations

import random
import stat
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from ptxas_oracle import generate  # noqa: E402
from ptxas_oracle import ptxas as oracle  # noqa: E402

# Markers in a case's instruction line choose what the stand-in does with it.
FAKE_PTXAS = r'''
import os, signal, sys
if "--version" in sys.argv:
    print("Cuda compilation tools, release 13.0, V13.0.88"); sys.exit(0)
src = next(a for a in sys.argv if a.endswith(".ptx"))
lines = open(src).read().split("\n")
out = []
for n, line in enumerate(lines, 1):
    if "CRASH" in line:
        os.kill(os.getpid(), signal.SIGSEGV)
    if "FATAL" in line:
        out.append(f"ptxas {src}, line {n}; fatal   : Parsing error near 'FATAL': syntax error")
        print("\n".join(out)); print("ptxas fatal   : Ptx assembly aborted due to errors"); sys.exit(255)
    if "BAD" in line:
        out.append(f"ptxas {src}, line {n}; error   : Unknown modifier '.BAD'")
    if "WARN" in line:
        out.append(f"ptxas {src}, line {n}; warning : Vector Type not specified properly")
if any("; error" in m for m in out):
    print("\n".join(out)); print("ptxas fatal   : Ptx assembly aborted due to errors"); sys.exit(255)
if any("LATE" in line for line in lines):      # a code-generation error: no line
    print("ptxas fatal   : 32-Bit ABI (--machine 32 or -m32) not supported"); sys.exit(255)
print("\n".join(out)); sys.exit(0)
'''

MARKERS = ["", "", "", "BAD", "WARN", "FATAL", "LATE", "BAD WARN", "CRASH"]


@pytest.fixture(scope="module")
def fake_ptxas(tmp_path_factory):
    path = tmp_path_factory.mktemp("fake") / "ptxas"
    path.write_text(f"#!{sys.executable}\n{FAKE_PTXAS}")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def _cases(n: int, seed: int) -> list[generate.Case]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        k = generate.Kernel()
        r = k.reg(".u32")
        marker = rng.choice(MARKERS)
        focus = f"ld.global.u32 {r}, [%addr];" + (f" // {marker}" if marker else "")
        if rng.random() < 0.2:                      # a second statement over two lines
            k.lines.append(f"ld.global.u32 {r},\n\t\t[%addr];")
        out.append(generate.make_case("fake", i, (9, 0), "sm_90", k, focus))
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_batched_verdicts_equal_single_runs(fake_ptxas, seed):
    cases = _cases(30, seed)
    batched, runs = oracle.run_cases(cases, fake_ptxas, workers=1)
    assert runs < 2 * len(cases)
    for c in cases:
        single = oracle.run_single(fake_ptxas, c)
        got = batched[c.id]
        assert (got.verdict, sorted(got.errors, key=str), sorted(got.warnings, key=str)) == (
            single.verdict, sorted(single.errors, key=str), sorted(single.warnings, key=str)), c.focus


def test_marker_semantics(fake_ptxas):
    """The stand-in's verdicts are the ones the markers describe."""
    want = {"": "accept", "WARN": "accept", "BAD": "reject", "FATAL": "reject", "LATE": "reject",
            "CRASH": "crash"}
    for marker, verdict in want.items():
        k = generate.Kernel()
        case = generate.make_case("fake", 0, (9, 0), "sm_90", k,
                                  f"ld.global.u32 {k.reg('.u32')}, [%addr]; // {marker}")
        v = oracle.run_single(fake_ptxas, case)
        assert v.verdict == verdict, marker
        if marker == "BAD":
            assert v.errors == [(case.focus_line, "Unknown modifier '.BAD'")]
        if marker == "CRASH":
            assert v.crashes == oracle.CRASH_RETRIES


def test_parse_messages_reads_ptxas_output():
    text = ("ptxas /t/m.ptx, line 11; error   : Arguments mismatch for instruction 'ld'\n"
            "ptxas /t/m.ptx, line 24; warning : Vector Type not specified properly\n"
            "ptxas <builtin>, line 28; fatal   : Parsing error near ')': syntax error\n"
            "ptxas fatal   : 32-Bit ABI (--machine 32 or -m32) not supported\n"
            "ptxas fatal   : Ptx assembly aborted due to errors\n")
    msgs = oracle.parse_messages(text, "/t/m.ptx")
    assert [(m.severity, m.line) for m in msgs] == [("error", 11), ("warning", 24), ("fatal", None),
                                                    ("fatal", None)]
    assert msgs[0].text == "Arguments mismatch for instruction 'ld'"
    assert msgs[2].text.startswith("<builtin>, line 28:")
