"""Text forms: every accepted spelling assembles to the word nvdisasm would print canonically."""
from __future__ import annotations

import pytest

from ptxld.sass import SassError, assemble, disassemble, parse_instruction
from ptxld.sass.control import Slot

# canonical texts and words below are nvdisasm 12.8 output (REPORT worked example, ptxas words)
CANONICAL = {
    "LDG.E R4, [R4+0x10]": 0xEED4200001070404,
    "LDG.E.CI.U.128 R12, [R4+-0x10]": 0xEED7AFFFFF07040C,
    "LDG.E.S8 R8, [R8+-0x800000]": 0xEED1280000070808,
    "LD.E R6, [R6], P0": 0x8090000000070606,
}


@pytest.mark.parametrize("spelling, canonical", [
    ("LDG.E R4, [R4+0x10];", "LDG.E R4, [R4+0x10]"),
    ("ldg.e r4, [r4 + 16]", "LDG.E R4, [R4+0x10]"),
    ("LDG.E.32.CA R4, [R4+0x10]", "LDG.E R4, [R4+0x10]"),
    ("LDG.E.CS R4, [R4+0x10]", "LDG.E R4, [R4+0x10]"),            # .CS maps to .CA
    ("LDG.U.128.CI.E R12, [R4-0x10]", "LDG.E.CI.U.128 R12, [R4+-0x10]"),
    ("LDG.E.CI.U.128 R12, [R4 + -16]", "LDG.E.CI.U.128 R12, [R4+-0x10]"),
    ("--:-:6:-:1  LDG.E.S8 R8, [R8-0x800000] ;", "LDG.E.S8 R8, [R8+-0x800000]"),
    ("LDG.E.S8 R8, [R8+-0x800000] &wr=0x5 ?trans1;", "LDG.E.S8 R8, [R8+-0x800000]"),
    ("{ LD.E R6, [R6], P0 }", "LD.E R6, [R6], P0"),
])
def test_spellings_assemble_to_the_canonical_word(spelling, canonical):
    assert assemble(spelling) == CANONICAL[canonical]
    assert disassemble(CANONICAL[canonical]) == canonical


def test_lu_maps_to_cg():
    assert disassemble(assemble("LDG.E.LU R0, [R2]")) == "LDG.E.CG R0, [R2]"


def test_ldg_description_examples():
    # "LDG.32 R3, [R1]": .32 is the default and is never printed; no .E = 32-bit address
    assert disassemble(assemble("LDG.32      R3, [R1];")) == "LDG R3, [R1]"
    assert disassemble(assemble("LDG.E       R0, [R2];")) == "LDG.E R0, [R2]"


def test_absolute_forms():
    assert disassemble(assemble("LDG.E R4, [0xfffff0]")) == "LDG.E R4, [0xfffff0]"
    assert disassemble(assemble("LDG.E R4, [RZ+0x10]")) == "LDG.E R4, [0x10]"
    assert disassemble(assemble("LDG.E R4, []")) == "LDG.E R4, [RZ]"  # omitted Ra and offset
    assert disassemble(assemble("LDG.E.U8 P1, R4, [0xfffff]", arch="sm_52"),
                       arch="sm_52") == "LDG.E.U8 P1, R4, [0xfffff]"


def test_guards():
    assert disassemble(assemble("@!PT LDG.E R4, [R4]")).startswith("@!PT ")
    assert disassemble(assemble("@PT LDG.E R4, [R4]")) == "LDG.E R4, [R4]"
    assert disassemble(assemble("@P3 LDG.E R4, [R4]")) == "@P3 LDG.E R4, [R4]"


def test_annotations_and_maxas_agree():
    _, a = parse_instruction("LDG.E R4, [R2] &req={0,5} &rd=0x0 &wr=0x5 ?WAIT3_END_GROUP")
    _, b = parse_instruction("21:1:6:Y:3 LDG.E R4, [R2]")
    assert a == b == Slot(stall=3, yield_=0, wr=5, rd=0, wait=0b100001)


@pytest.mark.parametrize("text, message", [
    ("STG.E [R2], R4", "only LDG and LD"),
    ("LDG.E.FOO R4, [R2]", "unknown modifier .FOO"),
    ("LDG.E.CG.CV R4, [R2]", "more than one cache operator"),
    ("LDG.E R4, [R2+0x800000]", "ImmS24"),
    ("LDG.E R4, [0x1000000]", "ImmU24"),
    ("LDG.E R4, [-0x10]", "cannot be negative"),
    ("LDG.E.U8 P0, R4, [R2+0x80000]", "ImmS20"),
    ("LDG.E R255, [R2]", "does not exist"),
    ("LDG.E R4, R2", "address"),
    ("LDG.E R4, [R2 0x10]", "needs + or -"),
    ("LDG.E R4", "expected operands"),
    ("@P7 LDG.E R4, [R2]", "guard predicate"),
    ("LDG.E R4, [R2] &req={7}", "scoreboards are 0..5"),
    ("LDG.E R4, [R2] ?bogus", "unknown scheduling annotation"),
    ("", "empty"),
])
def test_errors_name_the_cause(text, message):
    with pytest.raises(SassError, match=message.replace("+", r"\+").replace(".", r"\.")):
        assemble(text)


def test_sparse_form_needs_sm52():
    with pytest.raises(SassError, match="sm_52"):
        assemble("LDG.E.U8 P0, R4, [R2]", arch="sm_50")
    with pytest.raises(SassError, match="architecture"):
        assemble("LDG.E R4, [R2]", arch="sm_70")
