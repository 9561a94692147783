"""LDG execution against a per-lane NumPy reference built from the seed's description."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from ptxld.sass import parse_instruction
from ptxld.sass.execute import SassExecutionError, execute
from ptxld.spec import ldg as spec

MEM_SIZE = 4096
DTYPES = {"U8": "<u1", "S8": "<i1", "U16": "<u2", "S16": "<i2", "32": "<u4", "64": "<u4",
          "128": "<u4", "U.128": "<u4"}


def reference(memory: bytes, address: int, size: str) -> list[int]:
    """Registers written for one lane: seed semantics, spelled out per lane."""
    n = spec.SIZE_BYTES[size]
    address -= address % n                      # forced natural alignment
    chunk = memory[address:address + n]
    values = np.frombuffer(chunk, dtype=DTYPES[size])
    return [int(v) & 0xFFFFFFFF for v in values]  # sign extension of S8/S16 into 32 bits


def setup(lanes, seed=0):
    rng = np.random.default_rng(seed)
    memory = rng.integers(0, 256, MEM_SIZE, dtype=np.uint8)
    regs = rng.integers(0, 2**32, (16, lanes), dtype=np.uint32)
    preds = rng.random((7, lanes)) < 0.5
    return memory, regs, preds


@settings(max_examples=150, deadline=None)
@given(size=st.sampled_from(spec.SIZES), e=st.booleans(), imm=st.integers(-64, 64),
       seed=st.integers(0, 2**16))
def test_register_plus_offset(size, e, imm, seed):
    lanes = 8
    memory, regs, preds = setup(lanes, seed)
    rng = np.random.default_rng(seed + 1)
    addrs = rng.integers(64, MEM_SIZE - 80, lanes)
    regs[2] = addrs.astype(np.uint32)
    regs[3] = 0
    rd = 8
    text = f"LDG{'.E' if e else ''}{'' if size == '32' else '.' + size} R{rd}, [R2+{imm}]"
    before = regs.copy()
    execute(text, regs, preds, memory)
    for lane in range(lanes):
        want = reference(memory.tobytes(), int(addrs[lane]) + imm, size)
        got = [int(regs[rd + k, lane]) for k in range(len(want))]
        assert got == want, (text, lane)
    untouched = [r for r in range(16) if not rd <= r < rd + max(1, spec.SIZE_BYTES[size] // 4)]
    assert (regs[untouched] == before[untouched]).all()


def test_e_uses_the_register_pair_and_32bit_wraps():
    memory, regs, preds = setup(2)
    regs[4] = [0x10, 0x20]
    regs[5] = [0, 1]                       # lane 1: {R5, R4} = 0x1_0000_0020, outside memory
    with pytest.raises(SassExecutionError, match=r"lane 1 .* 0x100000020"):
        execute("LDG.E R0, [R4]", regs, preds, memory)
    execute("LDG R0, [R4]", regs, preds, memory)   # no .E: R5 is not part of the address
    assert list(regs[0]) == [reference(memory.tobytes(), a, "32")[0] for a in (0x10, 0x20)]
    regs[4] = 0xFFFFFFF0                   # 32-bit address wraps: 0xfffffff0 + 0x20 = 0x10
    execute("LDG R1, [R4+0x20]", regs, preds, memory)
    assert regs[1, 0] == reference(memory.tobytes(), 0x10, "32")[0]


@pytest.mark.parametrize("address", ["[RZ+0x123]", "[0x123]", "[R200+0x123]"])
def test_absolute_address_for_rz_missing_or_out_of_range_ra(address):
    memory, regs, preds = setup(3)
    execute(f"LDG.E.U16 R0, {address}", regs, preds, memory)
    assert (regs[0] == reference(memory.tobytes(), 0x122, "U16")[0]).all()


def test_guard_predicate_and_active_mask():
    memory, regs, preds = setup(4)
    regs[2], regs[3] = 0x40, 0
    preds[3] = [True, False, True, False]
    before = regs.copy()
    execute("@!P3 LDG.E.64 R6, [R2]", regs, preds, memory, active=[True, True, False, True])
    want = reference(memory.tobytes(), 0x40, "64")
    for lane, runs in enumerate([False, True, False, True]):
        expect = want if runs else [int(before[6, lane]), int(before[7, lane])]
        assert [int(regs[6, lane]), int(regs[7, lane])] == expect


def test_rz_destination_discards_and_word_input_works():
    memory, regs, preds = setup(2)
    before = regs.copy()
    execute(0xEED420000007FFFF, regs, preds, memory)   # LDG.E RZ, [RZ] as a 64-bit word
    assert (regs == before).all()


def test_sparse_pages_read_zero_and_set_ps():
    memory, regs, preds = setup(4)
    regs[2] = [0x000, 0x400, 0x800, 0xC00]
    regs[3] = 0
    preds[:] = [[False] * 4] * 7
    preds[1] = [False, True, False, True]
    insn, _ = parse_instruction("LDG.E.128 P1, R4, [R2+0x10]")
    execute(insn, regs, preds, memory, arch="sm_52", sparse_pages=[1, 3], page_size=0x400)
    for lane in range(4):
        sparse = lane in (1, 3)
        want = [0, 0, 0, 0] if sparse else reference(memory.tobytes(), int(regs[2, lane]) + 0x10, "128")
        assert [int(regs[4 + k, lane]) for k in range(4)] == want
        assert preds[1, lane] == sparse


def test_faults_are_clear():
    memory, regs, preds = setup(1)
    regs[2], regs[3] = MEM_SIZE - 2, 0
    with pytest.raises(SassExecutionError, match="outside memory"):
        execute("LDG.E R0, [R2+0x4]", regs, preds, memory)
    with pytest.raises(SassExecutionError, match="register file"):
        execute("LDG.E.128 R14, [RZ]", regs, preds, memory)


def test_vectorised_over_many_lanes():
    lanes = 4096
    memory, regs, preds = setup(lanes)
    addrs = np.arange(lanes, dtype=np.uint32) % (MEM_SIZE - 16)
    regs[2], regs[3] = addrs, 0
    execute("LDG.E.S8 R0, [R2]", regs, preds, memory)
    want = memory[addrs].astype(np.int8).astype(np.int64) & 0xFFFFFFFF
    assert (regs[0] == want).all()


@pytest.mark.parametrize("cop", ["", ".CG", ".CS", ".LU", ".CV", ".CI", ".CA"])
def test_cache_operators_do_not_change_values(cop):
    """The seed's cache operators are placement hints; the loaded value is the same."""
    memory, regs, preds = setup(4)
    regs[2], regs[3] = [0, 16, 32, 48], 0
    execute(f"LDG.E{cop}.64 R6, [R2+0x8]", regs, preds, memory)
    for lane in range(4):
        want = reference(memory.tobytes(), 16 * lane + 8, "64")
        assert [int(regs[6, lane]), int(regs[7, lane])] == want


def test_u128_loads_like_128():
    memory, regs, preds = setup(2)
    regs[2], regs[3] = [0, 0x30], 0
    a, b = regs.copy(), regs.copy()
    execute("LDG.E.U.128 R8, [R2]", a, preds, memory)
    execute("LDG.E.128 R8, [R2]", b, preds, memory)
    assert (a == b).all()
