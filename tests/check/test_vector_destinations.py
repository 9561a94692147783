"""ld destinations against ptxas 13.0's verdicts (data/vector_destinations.json, measured by
vector_matrix.py): every vector length x type x register class, and every ordered pair of
register classes in a `.v2` destination. Covers the relaxed type rules, which are looser for
vectors (`.v2 .f32` into `.u32` passes, scalar does not), and mixed-element vectors."""
from __future__ import annotations

import json

import pytest

from ptxld.checker import check_source
from vector_matrix import CLASSES, DATA, FIRST_LINE, modules, pairs, rejected_lines

with open(DATA) as f:
    MEASURED = json.load(f)
MODULES = modules()


@pytest.mark.parametrize("key", sorted(MODULES))
def test_verdict_per_line_matches_ptxas(key):
    text = MODULES[key]
    errors = [d for d in check_source(text) if d.severity == "error"]
    got = rejected_lines(text, errors)
    want = MEASURED["verdicts"][key]
    names = CLASSES if key.startswith("class") else [f"{a}+{b}" for a, b in pairs()]
    diff = [f"{names[i]}: ptxas {'rejects' if w == '1' else 'accepts'}"
            for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not diff, f"{key}: {diff}"
    assert len(got) == len(want)


def test_the_data_holds_the_relaxations():
    """The facts the rules model, read from the data (guards against a silently bad re-measure)."""
    v = MEASURED["verdicts"]
    assert v["class.s.f32"][CLASSES.index("u32")] == "1"
    assert v["class.v2.f32"][CLASSES.index("u32")] == "0"
    assert v["class.v4.f64"][CLASSES.index("s64")] == "0"
    assert v["pair.b32"][pairs().index(("b32", "pred"))] == "0"
    assert v["pair.f32"][pairs().index(("f32", "pred"))] == "1"
    assert FIRST_LINE > 1
