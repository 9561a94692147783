"""Every LDG/LD word that NVIDIA's tools produced or decoded: our text must be nvdisasm's, and
assembling that text must give the word back."""
from __future__ import annotations

import collections

import pytest

from ptxld.sass import SassError, assemble, disassemble
from ptxld.spec import ldg as spec

from sass_vectors import words_madeup, words_ptxas


def test_enough_real_words():
    real = {(r["arch"], r["word"]) for r in words_ptxas()}
    assert len(real) >= 1000
    assert {r["arch"] for r in words_ptxas()} == set(spec.ARCHES)
    assert any(r["ptxas"].endswith("-m32") for r in words_ptxas())  # forms without .E


def test_real_words_disassemble_and_assemble_exactly():
    bad = []
    for r in words_ptxas():
        word = int(r["word"], 16)
        text = disassemble(word, arch=r["arch"])
        if text != r["text"] or assemble(r["text"], arch=r["arch"]) != word:
            bad.append((r["arch"], r["word"], r["text"], text))
    assert not bad, bad[:10]


def _canonical_madeup():
    return [r for r in words_madeup() if "text" in r and not r.get("unused_bits")]


def test_enough_madeup_words():
    assert len(_canonical_madeup()) >= 3000


def test_madeup_words_disassemble_and_assemble_exactly():
    bad = []
    for r in _canonical_madeup():
        word = int(r["word"], 16)
        text = disassemble(word, arch=r["arch"])
        if text != r["text"] or assemble(r["text"], arch=r["arch"]) != word:
            bad.append((r["arch"], r["word"], r["text"], text))
    assert not bad, bad[:10]


def test_unused_bits_are_ignored_as_nvdisasm_ignores_them():
    rows = [r for r in words_madeup() if r.get("unused_bits") and "text" in r]
    assert rows
    for r in rows:
        assert disassemble(int(r["word"], 16), arch=r["arch"]) == r["text"]


def test_words_nvdisasm_rejects_are_rejected():
    rows = [r for r in words_madeup() if "error" in r]
    assert rows and {r["form"] for r in rows} == {"ldg_sparse"}
    assert {r["arch"] for r in rows} == {"sm_50"}
    for r in rows:
        with pytest.raises(SassError, match="sm_50"):
            disassemble(int(r["word"], 16), arch=r["arch"])
        text = disassemble(int(r["word"], 16), arch="sm_52")
        with pytest.raises(SassError, match="sm_52"):
            assemble(text, arch="sm_50")


def test_madeup_words_cover_every_field_value():
    """Each form's every field value (registers and immediates at their edges) was checked."""
    seen = collections.defaultdict(set)
    forms = {f.name: f for f in spec.FORMS}
    for r in _canonical_madeup():
        form, word = forms[r["form"]], int(r["word"], 16)
        for f in form.fields:
            seen[(r["arch"], form.name, f.name)].add((word & f.mask) >> f.lo)
    for arch in spec.ARCHES:
        for form in spec.FORMS:
            if arch not in form.arches:
                continue
            for f in form.fields:
                values = seen[(arch, form.name, f.name)]
                if f.width <= 8:
                    assert len(values) == 1 << f.width, (arch, form.name, f.name)
                else:
                    top = (1 << f.width) - 1
                    assert {0, top, 1 << (f.width - 1), (1 << (f.width - 1)) - 1} <= values


def test_reuse_flags_in_control_do_not_change_ldg_text():
    """The made-up groups carry random control words (reuse bits included); text is unaffected."""
    by_word = collections.defaultdict(set)
    for r in _canonical_madeup():
        by_word[(r["arch"], r["word"])].add(r["text"])
    assert all(len(t) == 1 for t in by_word.values())
