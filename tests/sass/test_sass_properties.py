"""Hypothesis: every field combination round-trips word -> text -> word and text -> word -> text.

The decode side is anchored to nvdisasm by test_sass_words.py; these properties extend it to every
combination of field values (not only the ones in the vectors)."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from ptxld.sass import LdgInstruction, assemble, decode, disassemble, encode
from ptxld.sass.encoding import imm_range
from ptxld.spec import ldg as spec

ARCH = "sm_61"  # every form exists there


@st.composite
def instructions(draw):
    form = draw(st.sampled_from(spec.FORMS))
    ra = draw(st.integers(0, 255))
    lo, hi = imm_range(form, ra == spec.RZ)
    return LdgInstruction(
        form=form.name, rd=draw(st.integers(0, 255)), ra=ra, imm=draw(st.integers(lo, hi)),
        size=draw(st.sampled_from(spec.SIZES)),
        cop=draw(st.sampled_from(spec.COPS + tuple(spec.COP_ALIASES))),
        e=draw(st.booleans()), pred=draw(st.integers(0, 7)), pred_neg=draw(st.booleans()),
        ps=draw(st.integers(0, 7)) if form.name == "ldg_sparse" else None,
        p=draw(st.integers(0, 7)) if form.name == "ld" else None)


def canonical(insn: LdgInstruction) -> LdgInstruction:
    return insn.with_(cop=spec.COP_ALIASES.get(insn.cop, insn.cop))


@settings(max_examples=600)
@given(instructions())
def test_fields_roundtrip_through_word_and_text(insn):
    word = encode(insn, arch=ARCH)
    assert decode(word, arch=ARCH) == canonical(insn)
    text = disassemble(word, arch=ARCH)
    assert assemble(text, arch=ARCH) == word
    assert disassemble(assemble(text, arch=ARCH), arch=ARCH) == text


@settings(max_examples=600)
@given(st.sampled_from(spec.FORMS), st.integers(0, 2**64 - 1))
def test_any_word_of_a_form_decodes_and_reencodes_without_unused_bits(form, noise):
    word = form.opcode_value | (noise & ~form.opcode_mask)
    insn = decode(word, arch=ARCH)
    assert encode(insn, arch=ARCH) == word & ~form.unused_mask


@given(instructions())
def test_cache_aliases_encode_like_their_targets(insn):
    if insn.cop in spec.COP_ALIASES:
        assert encode(insn, arch=ARCH) == encode(canonical(insn), arch=ARCH)
