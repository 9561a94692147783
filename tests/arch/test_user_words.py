"""User-facing text speaks of the PTX ISA and ptxas only: no source excerpts ("seed"), no paths
of documents outside the repository, no internal issue or item numbers — in the package (rule
names, messages, help, docstrings) and in docs/ (rule pages included)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = re.compile(
    r"\bseeds?\b|\bseed[-_']"                                  # the excerpts the work started from
    r"|(?<![\w.])shared/(?:seeds|spec|corpus|design)|/work/"   # documents outside the repository
    r"|\b(?:issue|item)s? \d+|\bREPORT §",                     # internal numbering
    re.IGNORECASE)


def _files():
    for folder, suffixes in (("src", {".py"}), ("docs", {".md", ".svg", ".txt"})):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in suffixes and path.is_file():
                yield path


def test_no_internal_words_in_the_package_and_docs():
    bad = []
    for path in _files():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = FORBIDDEN.search(line)
            if m:
                bad.append(f"{path.relative_to(ROOT)}:{n}: {m.group()!r}: {line.strip()[:120]}")
    assert not bad, "\n".join(bad)


def test_the_pattern_catches_what_it_should():
    for text in ("the seed's table", "seed-gate-not-enforced", "shared/spec/ptxas-vs-seeds.md",
                 "(issue 10, item 3)", "REPORT §5", '"seed_only": true'):
        assert FORBIDDEN.search(text), text
    for text in ("PTX ISA 9.7.9.8 (ld)", "`.u32` for shared/local offsets", "seeded with 0"):
        assert not FORBIDDEN.search(text), text
