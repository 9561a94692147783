"""The emulator's NumPy fast path for add/sub/mul.f32/.f64 agrees bit for bit with the ALU
library (round to nearest even, canonical NaN), on special values and random bit patterns."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ptxld.emu.alu import lookup
from ptxld.emu.sem_alu import native_float

SPECIAL32 = [0, 0x80000000, 1, 0x807FFFFF, 0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000,
             0x7FA00001, 0xFFC00000, 0x3F800000, 0x00800000]
SPECIAL64 = [0, 1 << 63, 1, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
             0x7FF0000000000001, 0x3FF0000000000000, 0x000FFFFFFFFFFFFF]


@pytest.mark.parametrize("opcode", ["add.f32", "sub.rn.f32", "mul.f32", "add.rn.f64", "sub.f64",
                                    "mul.rn.f64"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_fast_path_equals_alu(opcode, data):
    wide = opcode.endswith("f64")
    ut, bits, special = (np.uint64, 64, SPECIAL64) if wide else (np.uint32, 32, SPECIAL32)
    n = 64
    vals = st.one_of(st.sampled_from(special), st.integers(0, 2**bits - 1))
    a = np.array(data.draw(st.lists(vals, min_size=n, max_size=n)), ut)
    b = np.array(data.draw(st.lists(vals, min_size=n, max_size=n)), ut)
    (want,) = lookup(opcode)(a, b)
    (got,) = native_float(opcode)(a, b)
    assert np.array_equal(got, want)


def test_fast_path_declines_other_modes():
    assert native_float("add.rz.f32") is None
    assert native_float("add.ftz.f32") is None
    assert native_float("add.sat.f32") is None
    assert native_float("fma.rn.f32") is None
