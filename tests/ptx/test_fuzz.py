"""Mutation fuzzing of the committed PTX: byte flips, deleted and duplicated lines, swapped tokens.

For every mutant: `parse` and `check` never raise and never report an internal error (PTX0000);
`format` returns text or raises `FormatError` (nothing else); formatted text checks the same as
the mutant and keeps every comment; and a mutant that parses without errors either loads as a
`RawModule` or is refused with an `EmulationError`. The default sample is small and fixed
(seeded); the `slow` marker runs a large one."""
from __future__ import annotations

import glob
import os
import random
import re

import pytest

import ptxld
from ptxld.emu.errors import EmulationError

_REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
FILES = sorted(glob.glob(os.path.join(_REPO, "tests", "kernels", "ptx", "**", "*.ptx"), recursive=True)
               + [os.path.join(_REPO, "examples", "loads.ptx")])
# small modules for the default sample (a mutant of a big one costs more and finds no more)
SMALL = [p for p in FILES if os.path.getsize(p) < 12_000]
_TOKEN = re.compile(r"[%\w.$:]+|[^\s\w]")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def mutate(text: str, rng: random.Random) -> str:
    """One to three random edits of one of four kinds."""
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(4)
        lines = text.split("\n")
        if kind == 0 and text:                      # flip one bit of one byte
            data = bytearray(text.encode("utf-8", "surrogatepass"))
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
            text = data.decode("utf-8", errors="replace")
        elif kind == 1 and len(lines) > 1:          # delete a line
            del lines[rng.randrange(len(lines))]
            text = "\n".join(lines)
        elif kind == 2:                             # duplicate a line
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
            text = "\n".join(lines)
        else:                                       # swap two tokens
            toks = list(_TOKEN.finditer(text))
            if len(toks) < 2:
                continue
            i = rng.randrange(len(toks))
            j = min(len(toks) - 1, i + rng.randint(1, 6)) if rng.random() < 0.7 else rng.randrange(len(toks))
            a, b = sorted((toks[i], toks[j]), key=lambda m: m.start())
            if a.start() == b.start():
                continue
            text = (text[:a.start()] + b.group() + text[a.end():b.start()] + a.group()
                    + text[b.end():])
    return text


def _verdict(diags) -> list:
    """What a check says, without positions (formatting moves text)."""
    return sorted((d.code, d.severity, d.message) for d in diags)


def _comments(text: str) -> list[str]:
    return sorted(" ".join(c.split()) for c in _COMMENT.findall(text))


def check_one(text: str) -> None:
    module = ptxld.parse(text)
    diags = ptxld.check(text)
    assert not [d for d in diags if d.code == "PTX0000"], [d.message for d in diags if d.code == "PTX0000"]
    try:
        out = ptxld.format(text)
    except ptxld.FormatError:
        out = None
    if out is not None:
        assert _comments(out) == _comments(text)
        assert _verdict(ptxld.check(out)) == _verdict(diags)
        assert ptxld.format(out) == out
    if not [d for d in module.diagnostics if d.severity == "error"]:
        try:
            ptxld.RawModule(code=text)
        except EmulationError:
            pass


def _cases(n: int, files: list[str], seed: int) -> list[tuple[str, int]]:
    rng = random.Random(seed)
    return [(rng.choice(files), rng.randrange(1 << 30)) for _ in range(n)]


def _run(path: str, seed: int) -> None:
    with open(path, encoding="utf-8") as f:
        original = f.read()
    mutant = mutate(original, random.Random(seed))
    try:
        check_one(mutant)
    except AssertionError as e:
        raise AssertionError(f"mutant {seed} of {os.path.relpath(path, _REPO)}:\n{e}") from None


@pytest.mark.parametrize("path, seed", _cases(24, SMALL, 11), ids=lambda x: str(x)[-24:])
def test_mutants_of_committed_ptx(path, seed):
    _run(path, seed)


@pytest.mark.slow
@pytest.mark.parametrize("path, seed", _cases(400, FILES, 12), ids=lambda x: str(x)[-24:])
def test_many_mutants_of_committed_ptx(path, seed):
    _run(path, seed)


def test_the_unmutated_files_pass():
    for path in SMALL:
        with open(path, encoding="utf-8") as f:
            check_one(f.read())


def test_mutations_change_the_text():
    with open(SMALL[0], encoding="utf-8") as f:
        text = f.read()
    assert sum(mutate(text, random.Random(s)) != text for s in range(20)) >= 18
