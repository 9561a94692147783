"""Control words: field layout against what nvdisasm shows (dual-issue braces) and ptxas emits."""
from __future__ import annotations

import collections

import pytest
from hypothesis import given, strategies as st

from ptxld.sass import SassError
from ptxld.sass import control
from ptxld.sass.control import Slot
from ptxld.spec import ldg as spec

from sass_vectors import control_madeup, words_ptxas


def test_dual_issue_braces_follow_stall0_yield1():
    """nvdisasm braces an instruction exactly when its slot, or the previous one, dual-issues."""
    rows = control_madeup()
    assert len(rows) >= 200
    for r in rows:
        slots = control.decode_control(int(r["control"], 16))
        for k in range(3):
            expected = slots[k].dual_issue or (k > 0 and slots[k - 1].dual_issue)
            assert r["paired"][k] == expected, (r["control"], k)


def test_ptxas_ldg_control_matches_the_report():
    """REPORT §5: ptxas gives nearly every LDG --:-:6:-:1 (write barrier 5, stall 1)."""
    counts = collections.Counter(
        control.format_maxas(control.decode_control(int(r["control"], 16))[r["slot"]])
        for r in words_ptxas() if r["ptxas"].startswith("ptxas 12"))
    top, n = counts.most_common(1)[0]
    assert top == "--:-:6:-:1" and n > 0.9 * sum(counts.values())


def test_known_word():
    # 0x001fc400fe2007f6 (ptxas): slot 0 = stall 6, no yield, no barriers
    s0, s1, s2 = control.decode_control(0x001FC400FE2007F6)
    assert control.format_maxas(s0) == "--:-:-:-:6"
    assert control.encode_control([s0, s1, s2]) == 0x001FC400FE2007F6


slots = st.builds(Slot, stall=st.integers(0, 15), yield_=st.integers(0, 1),
                  wr=st.integers(0, 7), rd=st.integers(0, 7), wait=st.integers(0, 63),
                  reuse=st.integers(0, 15))


@given(st.lists(slots, min_size=3, max_size=3))
def test_control_word_roundtrip(three):
    word = control.encode_control(three)
    assert word < 2**63
    assert list(control.decode_control(word)) == three


@given(slots)
def test_text_notations_roundtrip(slot):
    # the notations carry no reuse flags, and scoreboard indices 6 and 7 both mean "none"
    expect = Slot(stall=slot.stall, yield_=slot.yield_,
                  wr=slot.wr if slot.wr <= 5 else spec.NO_BARRIER,
                  rd=slot.rd if slot.rd <= 5 else spec.NO_BARRIER, wait=slot.wait)
    assert control.parse_annotations(control.format_annotations(expect)) == expect
    assert control.parse_maxas(control.format_maxas(expect)) == expect


@pytest.mark.parametrize("text", ["--:-:6:-", "--:-:9:-:1", "--:-:6:Q:1", "zz:-:6:-:1"])
def test_bad_maxas(text):
    with pytest.raises(SassError):
        control.parse_maxas(text)
