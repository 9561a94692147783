"""Approximate functions within PTX's stated bounds; atom combiners; opcode coverage."""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from ptxld.emu.alu import SUPPORTED, atom_combine, lookup, why_not
from ptxld.emu import program  # noqa: F401  (registers every handler)
from ptxld.emu.handlers import HANDLERS

RNG = np.random.default_rng(1234)


def f32(x):
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def out32(opcode, *srcs):
    return lookup(opcode)(*[f32(s) for s in srcs])[0].view(np.float32).astype(np.float64)


ULP = lambda v: math.ldexp(1.0, math.frexp(v)[1] - 24)  # noqa: E731  f32 ulp of a normal value

# (opcode, domain sampler, reference in Python float64 math, error kind, PTX bound)
CASES = [
    ("ex2.approx.f32", lambda n: RNG.uniform(-120, 120, n), lambda x: 2.0 ** x, "rel", 2 ** -22.5),
    ("ex2.approx.ftz.f32", lambda n: RNG.uniform(-100, 100, n), lambda x: 2.0 ** x, "rel", 2 ** -22.5),
    ("lg2.approx.f32", lambda n: RNG.uniform(0.5, 2.0, n), math.log2, "abs", 2 ** -22.6),
    ("sin.approx.f32", lambda n: RNG.uniform(-100 * math.pi, 100 * math.pi, n), math.sin, "abs", 2 ** -20.5),
    ("cos.approx.f32", lambda n: RNG.uniform(-100 * math.pi, 100 * math.pi, n), math.cos, "abs", 2 ** -20.5),
    ("tanh.approx.f32", lambda n: RNG.uniform(-10, 10, n), math.tanh, "rel", 2 ** -11),
    ("rsqrt.approx.f32", lambda n: np.exp(RNG.uniform(-80, 80, n)), lambda x: 1 / math.sqrt(x), "rel", 2 ** -22.9),
    ("sqrt.approx.f32", lambda n: np.exp(RNG.uniform(-80, 80, n)), math.sqrt, "rel", 2 ** -23),
    ("rcp.approx.f32", lambda n: np.exp(RNG.uniform(-80, 80, n)), lambda x: 1 / x, "ulp", 1.0),
]


@pytest.mark.parametrize("opcode,sample,ref,kind,bound", CASES, ids=[c[0] for c in CASES])
def test_approx_within_ptx_bound(opcode, sample, ref, kind, bound):
    x = sample(2000).astype(np.float32)
    got = out32(opcode, x)
    for xi, g in zip(x.tolist(), got.tolist()):
        r = ref(xi)
        err = abs(g - r) / {"rel": abs(r), "abs": 1.0, "ulp": ULP(r)}[kind]
        assert err <= bound, (opcode, xi, g, r, err)


def test_approx_special_values():
    assert out32("ex2.approx.f32", [-np.inf])[0] == 0.0
    assert np.isinf(out32("lg2.approx.f32", [0.0])[0])
    assert np.isnan(out32("lg2.approx.f32", [-1.0])[0])
    assert out32("rsqrt.approx.f32", [-0.0])[0] == -np.inf


def test_div_variants():
    a = np.float32([1.0, 3.0, 1.0, np.inf])
    b = np.float32([3.0, 2.0 ** 127, 2.0 ** 127, 2.0 ** 127])
    got = out32("div.approx.f32", a, b)
    assert abs(got[0] - 1 / 3) <= 2 * ULP(1 / 3)
    assert got[1] == 0.0 and got[2] == 0.0 and np.isnan(got[3])      # |b| in (2^126, 2^128)
    full = out32("div.full.f32", a, b)
    assert abs(full[1] - 3.0 / 2.0 ** 127) <= 2 * ULP(3.0 / 2.0 ** 127) * 2 ** 0


# -- atom / red combiners ------------------------------------------------------------------

def test_atom_integer_combiners():
    old = np.uint32([0, 5, 9, 10])
    b = np.uint32([9, 9, 9, 9])
    np.testing.assert_array_equal(atom_combine("inc", "u32")(old, b), [1, 6, 0, 0])      # old >= b -> 0
    np.testing.assert_array_equal(atom_combine("dec", "u32")(old, b), [9, 4, 8, 9])      # 0 or > b -> b
    np.testing.assert_array_equal(atom_combine("cas", "b32")(old, np.uint32([0, 1, 9, 2]), np.uint32([7] * 4)),
                                  [7, 5, 7, 10])
    neg = np.array([-1, 3], dtype=np.int32).view(np.uint32)
    np.testing.assert_array_equal(atom_combine("min", "s32")(neg, np.uint32([0, 2])).view(np.int32), [-1, 2])
    np.testing.assert_array_equal(atom_combine("min", "u32")(neg, np.uint32([0, 2])), [0, 2])
    np.testing.assert_array_equal(atom_combine("add", "u64")(np.uint64([2**64 - 1]), np.uint64([2])), [1])
    np.testing.assert_array_equal(atom_combine("exch", ".b64")(np.uint64([1]), np.uint64([2])), [2])
    np.testing.assert_array_equal(atom_combine("xor", "b32")(np.uint32([6]), np.uint32([3])), [5])


def test_atom_float_add():
    got = atom_combine("add", "f32")(f32([1.0, 1e-45]), f32([2 ** -24, 0.0])).view(np.float32)
    assert got[0] == np.float32(1.0) and got[1] == np.float32(1e-45)              # ties to even
    flushed = atom_combine("add", "f32", ftz=True)(f32([1e-45]), f32([0.0])).view(np.float32)
    assert flushed[0] == 0.0
    h = atom_combine("add", "f16x2")(np.uint32([0x3C00_3C00]), np.uint32([0x3C00_4000]))
    assert int(h[0]) == 0x4000_4200                                                  # (1+1, 1+2)
    b128 = atom_combine("cas", "b128")
    old = np.array([[1, 2], [3, 4]], dtype=np.uint64)
    np.testing.assert_array_equal(b128(old, np.array([[1, 2], [3, 5]], dtype=np.uint64),
                                       np.array([[9, 9], [9, 9]], dtype=np.uint64)), [[9, 9], [3, 4]])


# -- opcode coverage -----------------------------------------------------------------------

INVENTORY = Path(__file__).parents[1] / "kernels" / "ptx" / "INVENTORY.txt"
# instructions with a handler of their own (emu/handlers.py) are not ALU opcodes
NOT_ALU = {name.split(".")[0] for name in HANDLERS}


def test_every_inventory_alu_opcode_resolves():
    text = INVENTORY.read_text()
    section = text.split("## opcodes, all PTX")[1].split("\n## ")[0]
    opcodes = re.findall(r"^\s+\d+\s+(\S+)$", section, re.M)
    alu = [o for o in opcodes if o.split(".")[0] not in NOT_ALU]
    assert len(alu) > 100
    missing = [o for o in alu if lookup(o) is None]
    assert not missing, [why_not(o) for o in missing]


@pytest.mark.parametrize("opcode,dst,src", [
    ("add.rn.ftz.f32", (".f32",), (".f32", ".f32")),
    ("ftz.rn.add.f32", None, None),
    ("shl.b32", (".b32",), (".b32", ".u32")),
    ("setp.lt.and.s32", (".pred",), (".s32", ".s32", ".pred")),
    ("mad.wide.u32", (".u64",), (".u32", ".u32", ".u64")),
    ("mul.wide.s16", (".s32",), (".s16", ".s16")),
    ("cvt.rzi.s32.f32", (".s32",), (".f32",)),
    ("cvt.rn.bf16x2.f32", (".bf16x2",), (".f32", ".f32")),
    ("prmt.b32.f4e", (".b32",), (".b32", ".b32", ".b32")),
    ("fma.rn.f16x2", (".f16x2",), (".f16x2",) * 3),
    ("bfind.shiftamt.u32", (".u32",), (".u32",)),
    ("set.gt.ftz.f32.f32", (".f32",), (".f32", ".f32")),
])
def test_operand_types(opcode, dst, src):
    op = lookup(opcode)
    if dst is None:                                  # base mnemonic must come first
        assert op is None and "not an ALU instruction" in why_not(opcode)
        return
    assert (op.dst_types, op.src_types) == (dst, src)


@pytest.mark.parametrize("opcode", ["add.rn.s32", "mul.s32", "shl.f32", "cvt.rn.s32.f32", "ld.global.u32",
                                    "add.sat.u32", "setp.lt.b32", "add.f32.bogus"])
def test_invalid_opcodes_are_none_with_reason(opcode):
    assert lookup(opcode) is None
    assert opcode in why_not(opcode)


def test_qualifier_order_is_free_and_setp_pair_form():
    assert lookup("setp.lt.and.s32") is not None and lookup("setp.and.lt.s32") is not None
    op = lookup("setp.ne.s32")
    assert op.dst_types_pair == (".pred", ".pred")
    p, q = op.pair(np.uint32([1, 2]), np.uint32([1, 3]))
    assert list(p) == [False, True] and list(q) == [True, False]
    assert "cvt" in SUPPORTED and "setp" in SUPPORTED
