"""wmma.mma end to end (load A, B, C → mma → store D) against NumPy matmul."""
import itertools
import math
import zlib

import numpy as np
import pytest

from ptxld import wmma
from ptxld.spec import wmma as spec
from ptxld.wmma import WmmaError
from ptxld.wmma.layouts import FAMILIES, target_family
from wmma_helpers import Memory, from_bits, get_matrix, put_matrix, to_bits

INT_RANGE = {"s8": (-128, 127), "u8": (0, 255), "s4": (-8, 7), "u4": (0, 15), "b1": (0, 1)}
S32_MIN, S32_MAX = -(2 ** 31), 2 ** 31 - 1


def run_mma(m: spec.MmaSpec, target, alayout, blayout, A, B, C, *, satfinite=False,
            rounding=None, clayout="row", dlayout="row"):
    """Write A, B, C into memory, run the three loads, mma and store; return D's numbers."""
    M, N, K = spec.SHAPES[m.shape]
    mem = Memory(1 << 14, fill="zero")
    bases = {"a": 0, "b": 4096, "c": 8192, "d": 12288}
    regs = {}
    for matrix, t, lay, values in (("a", m.atype, alayout, A), ("b", m.btype, blayout, B),
                                   ("c", m.ctype, clayout, C)):
        fs = spec.fragment(m.shape, matrix, t)
        put_matrix(mem, bases[matrix], to_bits(values, t), lay, fs.default_stride(lay),
                   fs.element_bits)
        regs[matrix] = wmma.load(f"wmma.load.{matrix}.sync.aligned.{lay}.{m.shape}.{t}",
                                 mem.read, bases[matrix], None, target)
    types = m.suffix_types
    mods = ["wmma", "mma"] + ([m.op] if m.op else []) + ["sync", "aligned", alayout, blayout]
    mods += [m.shape] + ([rounding] if rounding else []) + list(types)
    op = ".".join(mods + (["satfinite"] if satfinite else []))
    d = wmma.mma(op, regs["a"], regs["b"], regs["c"], target)
    wmma.store(f"wmma.store.d.sync.aligned.{dlayout}.{m.shape}.{m.dtype}", mem.write,
               bases["d"], None, d, target)
    fd = spec.fragment(m.shape, "d", m.dtype)
    raw = get_matrix(mem, bases["d"], (M, N), dlayout, fd.default_stride(dlayout), fd.element_bits)
    return from_bits(raw, m.dtype)


def cases():
    for m in spec.mma_combinations():
        for family in FAMILIES:
            if FAMILIES.index(family) < FAMILIES.index(target_family(m.gate.min_sm)):
                continue
            for al, bl in itertools.product(m.alayouts, m.blayouts):
                yield pytest.param(m, family, al, bl,
                                   id=f"{family}-{al}.{bl}-{m.shape}-{'.'.join(m.suffix_types)}"
                                      + (f"-{m.op}" if m.op else ""))


def random_inputs(m, rng):
    M, N, K = spec.SHAPES[m.shape]
    if m.atype in INT_RANGE:
        lo, hi = INT_RANGE[m.atype]
        A = rng.integers(lo, hi + 1, (M, K))
        B = rng.integers(lo, hi + 1, (K, N))
        # extreme C values make some sums overflow s32
        C = rng.choice([S32_MAX - 50, S32_MIN + 50, 0, 12345, -777], (M, N))
    else:  # small integers: every product and sum is exact in every format involved
        A = rng.integers(-8, 9, (M, K)).astype(np.float64)
        B = rng.integers(-8, 9, (K, N)).astype(np.float64)
        C = rng.integers(-64, 65, (M, N)).astype(np.float64)
    return A, B, C


def int_reference(m, A, B, C, satfinite):
    A, B = np.asarray(A, dtype=object), np.asarray(B, dtype=object)
    if m.op == "xor.popc":
        acc = np.array([[sum(int(a) ^ int(b) for a, b in zip(A[i], B[:, j]))
                         for j in range(B.shape[1])] for i in range(A.shape[0])], dtype=object)
    else:  # integer products; and.popc on 0/1 bits is the same product
        acc = A.dot(B)
    total = acc + np.asarray(C, dtype=object)
    if satfinite:
        return np.vectorize(lambda v: min(max(v, S32_MIN), S32_MAX))(total).astype(np.int64)
    return np.vectorize(lambda v: (v - S32_MIN) % 2 ** 32 + S32_MIN)(total).astype(np.int64)


@pytest.mark.parametrize("m,target,alayout,blayout", list(cases()))
def test_mma_equals_numpy(m, target, alayout, blayout):
    rng = np.random.default_rng(zlib.crc32(repr((m.key, target, alayout, blayout)).encode()))
    A, B, C = random_inputs(m, rng)
    integer = m.atype in INT_RANGE
    for satfinite in ([False, True] if integer and m.satfinite else [False]):
        D = run_mma(m, target, alayout, blayout, A, B, C, satfinite=satfinite)
        if integer:
            assert (D == int_reference(m, A, B, C, satfinite)).all()
        else:
            assert (D == A @ B + C).all()  # exact on small integers


@pytest.mark.parametrize("dtype", ["f32", "f16"])
@pytest.mark.parametrize("target", ["sm_70", "sm_80"])
def test_f16_random_values_within_tolerance(dtype, target):
    rng = np.random.default_rng(1)
    m = spec.mma("m16n16k16", "f16", "f16", "f32", dtype)
    A = rng.standard_normal((16, 16)).astype(np.float16).astype(np.float64)
    B = rng.standard_normal((16, 16)).astype(np.float16).astype(np.float64)
    C = rng.standard_normal((16, 16)).astype(np.float32).astype(np.float64)
    D = run_mma(m, target, "col", "row", A, B, C, dlayout="col")
    ref = A @ B + C
    eps = 2.0 ** (-11 if dtype == "f16" else -24)  # one rounding to the output type
    bound = (np.abs(A) @ np.abs(B) + np.abs(C)) * 1e-12 + np.abs(ref) * eps
    assert (np.abs(D - ref) <= bound).all()


def test_bf16_and_tf32_random_values_within_tolerance():
    rng = np.random.default_rng(2)
    for shape, t in (("m32n8k16", "bf16"), ("m16n16k8", "tf32")):
        m = spec.mma(shape, t, t, "f32", "f32")
        M, N, K = spec.SHAPES[shape]
        A, B = rng.standard_normal((M, K)), rng.standard_normal((K, N))
        C = rng.standard_normal((M, N)).astype(np.float32).astype(np.float64)
        D = run_mma(m, "sm_80", "row", "col", A, B, C)
        # inputs as the hardware sees them: bf16 rounded on the way to memory; tf32 keeps
        # sign, exponent and the top 10 mantissa bits of the f32 container (ptxld truncates)
        if t == "bf16":
            Aq, Bq = (from_bits_bf16(to_bits(x, "bf16")) for x in (A, B))
        else:
            Aq, Bq = (truncate_tf32(x) for x in (A, B))
        ref = Aq @ Bq + C
        assert np.allclose(D, ref, rtol=2 ** -22, atol=1e-6)


def from_bits_bf16(bits):
    return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)


def truncate_tf32(x):
    bits = np.asarray(x, np.float32).view(np.uint32) & np.uint32(0xFFFFE000)
    return bits.view(np.float32).astype(np.float64)


def test_tf32_low_mantissa_bits_are_ignored():
    m = spec.mma("m16n16k8", "tf32", "tf32", "f32", "f32")
    A = np.full((16, 8), 1.0 + 2.0 ** -20)  # below tf32 precision
    B = np.eye(8, 16)
    D = run_mma(m, "sm_80", "row", "row", A, B, np.zeros((16, 16)))
    assert (D[:, :8] == 1.0).all()


@pytest.mark.parametrize("rounding,expected", [
    (None, 1.0), ("rn", 1.0), ("rz", 1.0), ("rm", 1.0), ("rp", math.nextafter(1.0, 2.0))])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_f64_rounding_modes(rounding, expected, sign):
    # exact value ±(1 + 2^-60): representable neighbours are ±1 and ±(1 + 2^-52)
    m = spec.mma("m8n8k4", "f64", "f64", "f64", "f64")
    A = np.zeros((8, 4))
    A[:, 0], A[:, 1] = sign, sign * 2.0 ** -60
    B = np.zeros((4, 8))
    B[0, :], B[1, :] = 1.0, 1.0
    D = run_mma(m, "sm_80", "row", "col", A, B, np.zeros((8, 8)), rounding=rounding)
    if sign < 0:  # mirror: rm on a negative value rounds away from zero, rp toward it
        expected = {"rm": -math.nextafter(1.0, 2.0), "rp": -1.0}.get(rounding, -expected)
    assert (D == expected).all()


def test_f64_random_values_round_to_nearest():
    rng = np.random.default_rng(4)
    m = spec.mma("m8n8k4", "f64", "f64", "f64", "f64")
    A, B, C = rng.standard_normal((8, 4)), rng.standard_normal((4, 8)), rng.standard_normal((8, 8))
    D = run_mma(m, "sm_80", "col", "row", A, B, C)
    assert np.allclose(D, A @ B + C, rtol=1e-15, atol=1e-15)


def test_f64_nan_and_inf_propagate():
    m = spec.mma("m8n8k4", "f64", "f64", "f64", "f64")
    A = np.ones((8, 4))
    A[0, 0], A[1, 0] = np.nan, np.inf
    D = run_mma(m, "sm_80", "row", "col", A, np.ones((4, 8)), np.zeros((8, 8)))
    assert np.isnan(D[0]).all() and np.isposinf(D[1]).all() and (D[2:] == 4).all()


def test_legacy_fp_satfinite_clamps_to_max_finite():
    m = spec.mma("m16n16k16", "f16", "f16", "f16", "f16")
    A = np.full((16, 16), 255.0)
    B = np.full((16, 16), 255.0)  # 16 · 65025 overflows f16
    mem_c = np.zeros((16, 16))
    D = run_mma(m, "sm_80", "row", "col", A, B, mem_c)
    assert np.isposinf(D).all()
    D = run_mma(m, "sm_80", "row", "col", A, B, mem_c, satfinite=True)
    assert (D == 65504.0).all()


def test_mma_rejects_disagreeing_replicas():
    a = np.zeros((32, 8), np.uint32)
    a[5, 6] = 0x3C00  # lane 5 register 6 is a copy of register 2 (sm_80 layout)
    with pytest.raises(WmmaError, match="replicated fragment copies disagree"):
        wmma.mma("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32", a,
                 np.zeros((32, 8), np.uint32), np.zeros((32, 8), np.uint32), "sm_80")
