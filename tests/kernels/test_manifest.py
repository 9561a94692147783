"""Well-formedness of the kernel manifest (cases.py) against the committed PTX.

No emulation here: these tests check that every case points at PTX that exists and declares
the entry, that the argument list matches the entry's parameter list, that the reference
functions run and give arrays shaped like the outputs, and that the exact-arithmetic helpers
the references use agree with independent rational arithmetic.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cases as manifest  # noqa: E402

KDIR = manifest.KERNELS_DIR
ALL = manifest.CASES
IDS = [c.name for c in ALL]

# PTX scalar parameter types -> (byte size, NumPy kind letters accepted)
PARAM_TYPES = {
    "u8": (1, "iu"), "s8": (1, "iu"), "b8": (1, "iu"),
    "u16": (2, "iu"), "s16": (2, "iu"), "b16": (2, "iuf"), "f16": (2, "f"),
    "u32": (4, "iu"), "s32": (4, "iu"), "b32": (4, "iuf"), "f32": (4, "f"),
    "u64": (8, "iu"), "s64": (8, "iu"), "b64": (8, "iuf"), "f64": (8, "f"),
}


def entry_params(ptx_text: str, entry: str) -> list[tuple[str, int | None]]:
    """[(type, array length or None)] of the .entry's parameters, in order."""
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\((.*?)\)", ptx_text, re.S)
    assert m, f"no .entry {entry}"
    params = []
    for decl in filter(None, (d.strip() for d in m.group(1).split(","))):
        ptype = re.search(r"\.(u8|s8|b8|u16|s16|b16|f16|u32|s32|b32|f32|u64|s64|b64|f64)\b", decl)
        assert ptype, f"unrecognised parameter declaration {decl!r}"
        length = re.search(r"\[(\d+)\]\s*$", decl)
        params.append((ptype.group(1), int(length.group(1)) if length else None))
    return params


def ptx_text(rel: str) -> str:
    return (KDIR / rel).read_text()


def test_case_names_are_unique():
    assert len(IDS) == len(set(IDS))


def test_enough_program_cases():
    programs = [c for c in ALL if c.source.startswith("programs_")]
    wmma = [c for c in ALL if c.source == "wmma_gemm.cu"]
    assert len(programs) >= 30
    assert len(wmma) >= 20


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_ptx_files_exist_and_declare_entry(case):
    assert case.ptx, "no PTX path"
    assert (KDIR / "cuda" / case.source).is_file()
    for rel in case.ptx:
        text = ptx_text(rel)
        assert re.search(r"^\.visible \.entry " + re.escape(case.entry) + r"\(", text, re.M), \
            f"{rel}: .entry {case.entry} not found"
        arch = Path(rel).parent.name
        assert re.search(r"^\.target " + arch + r"\b", text, re.M), f"{rel}: .target is not {arch}"


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_arguments_match_entry_parameters(case):
    args = case.make_args()
    for rel in case.ptx:
        params = entry_params(ptx_text(rel), case.entry)
        assert len(params) == len(args), f"{rel}: {len(params)} parameters, {len(args)} arguments"
        for index, ((ptype, length), arg) in enumerate(zip(params, args)):
            where = f"{case.name} argument {index} ({ptype})"
            if length is not None:  # struct by value: .b8 array
                assert isinstance(arg, (bytes, np.void)), where
                assert (len(arg) if isinstance(arg, bytes) else arg.dtype.itemsize) == length, where
            elif isinstance(arg, np.ndarray):
                assert ptype in ("u64", "b64", "s64"), f"{where}: array for a non-pointer"
                assert arg.ndim == 1 and arg.flags.c_contiguous, where
            else:
                assert isinstance(arg, np.generic), f"{where}: scalars must be NumPy-typed"
                size, kinds = PARAM_TYPES[ptype]
                assert arg.dtype.itemsize == size and arg.dtype.kind in kinds, f"{where}: {arg.dtype}"


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_reference_runs_and_matches_output_buffers(case):
    args = case.make_args()
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = case.reference(args)
    assert len(expected) == len(case.outputs) == len(case.compare)
    for a, b in zip(args, before):  # references must not write into the arguments
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, b, equal_nan=True)
    for index, want, mode in zip(case.outputs, expected, case.compare):
        buf = args[index]
        assert isinstance(buf, np.ndarray), f"output {index} is not a buffer"
        want = np.asarray(want)
        assert want.dtype == buf.dtype, f"output {index}: {want.dtype} vs buffer {buf.dtype}"
        assert want.size == buf.size, f"output {index}: {want.size} vs buffer {buf.size}"
        assert mode["mode"] in ("exact", "ulp", "close")
        if want.dtype.kind == "f":
            assert np.isfinite(want.astype(np.float64)).all() or case.name == "conversions"
        # the initial buffer must differ from the expected result, or the test could not fail
        assert not np.array_equal(buf.reshape(-1), want.reshape(-1)), f"output {index} already holds the result"


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_args_are_deterministic(case):
    first, second = case.make_args(), case.make_args()
    for a, b in zip(first, second):
        if isinstance(a, np.ndarray):
            assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
        else:
            assert bytes(a) == bytes(b) if isinstance(a, np.void) else a == b


@pytest.mark.parametrize("case", ALL, ids=IDS)
def test_launch_is_small(case):
    threads_per_block = int(np.prod(case.block))
    assert 1 <= threads_per_block <= 1024
    assert threads_per_block * int(np.prod(case.grid)) <= 65536
    assert case.shared_mem >= 0


def test_every_program_entry_has_a_case():
    covered = {(rel, c.entry) for c in ALL for rel in c.ptx}
    for path in sorted(KDIR.glob("ptx/*/*.ptx")):
        if not (path.stem.startswith("programs_") or path.stem == "wmma_gemm"):
            continue
        rel = path.relative_to(KDIR).as_posix()
        for entry in re.findall(r"^\.visible \.entry (\w+)\(", path.read_text(), re.M):
            assert (rel, entry) in covered, f"{rel}: {entry} has no case"


def test_commands_list_every_ptx_file():
    commands = (KDIR / "ptx" / "COMMANDS.txt").read_text()
    assert "release 13.0" in commands
    for path in KDIR.glob("ptx/*/*.ptx"):
        arch, name = path.parent.name, path.stem
        assert f"-arch={arch} cuda/{name}.cu -o ptx/{arch}/{name}.ptx" in commands, path


# ---- helpers used by the references, checked against exact rational arithmetic ----------------

def _round_fraction(x: Fraction, dtype) -> float:
    """Nearest `dtype` value to x, ties to even, by exhaustive comparison of the neighbours."""
    guess = dtype(float(x))
    cands = [guess, np.nextafter(guess, dtype(np.inf)), np.nextafter(guess, dtype(-np.inf))]
    bits = f"u{np.dtype(dtype).itemsize}"
    best = min(cands, key=lambda c: (abs(Fraction(float(c)) - x), int(np.array(c).view(bits)) & 1))
    return float(best)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_fma_round_is_a_single_rounding(dtype):
    r = np.random.default_rng(1)
    scale = 4.0 if dtype == np.float16 else 1e3
    a = r.uniform(-scale, scale, 3000).astype(dtype)
    b = r.uniform(-scale, scale, 3000).astype(dtype)
    c = r.uniform(-scale, scale, 3000).astype(dtype)
    # tie-prone cases: c chosen so that a*b + c sits on or near a rounding boundary
    c[:1000] = (-(a[:1000].astype(np.float64) * b[:1000])).astype(dtype)
    got = manifest.fma_round(a, b, c, dtype)
    for x, y, z, g in zip(a, b, c, got):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        assert float(g) == _round_fraction(exact, dtype), (x, y, z)


def test_fma_round_keeps_the_low_product_bits():
    a = b = np.float32(1 + 2**-12)  # a*b = 1 + 2^-11 + 2^-24 exactly
    c = np.float32(-1)
    assert manifest.fma_round(a, b, c) == np.float32(2**-11 + 2**-24)
    assert np.float32(np.float32(a * b) + c) == np.float32(2**-11)  # unfused loses 2^-24


def test_fma_f64_matches_rationals():
    r = np.random.default_rng(2)
    a, b, c = (r.uniform(-1e3, 1e3, 200) for _ in range(3))
    got = manifest.fma_f64(a, b, c)
    for x, y, z, g in zip(a, b, c, got):
        assert g == _round_fraction(Fraction(x) * Fraction(y) + Fraction(z), np.float64)


def test_c_division_truncates():
    assert manifest.c_div([-7, 7, -7, 7], [2, -2, -2, 2]).tolist() == [-3, -3, 3, 3]
    assert manifest.c_mod([-7, 7, -7, 7], [2, -2, -2, 2]).tolist() == [-1, 1, -1, 1]


def test_bf16_rounding():
    x = np.array([1.0, 1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-20, -2.0], np.float32)
    # 1+2^-8 is a tie (rounds to even 1.0); 1+3*2^-8 ties up to 1+2^-6; above the tie rounds up
    assert manifest.bf16_bits(x).tolist() == [0x3F80, 0x3F80, 0x3F82, 0x3F81, 0xC000]


def test_assert_matches_modes():
    want = np.array([1.0, 2.0, 3.0], np.float32)
    manifest.assert_matches(manifest.EXACT, want.copy(), want)
    one_ulp = np.nextafter(want, np.float32(np.inf))
    with pytest.raises(AssertionError):
        manifest.assert_matches(manifest.EXACT, one_ulp, want)
    manifest.assert_matches(manifest.ulp(1), one_ulp, want)
    with pytest.raises(AssertionError):
        manifest.assert_matches(manifest.ulp(1), np.nextafter(one_ulp, np.float32(np.inf)), want)
    with pytest.raises(AssertionError):  # signed zero is a bitwise difference
        manifest.assert_matches(manifest.EXACT, np.array([-0.0], np.float32), np.array([0.0], np.float32))
    with pytest.raises(AssertionError):
        manifest.assert_matches(manifest.EXACT, want.astype(np.float64), want)
    manifest.assert_matches(manifest.close(0, 1e-3), want + np.float32(1e-4), want)


def test_constant_table_is_read_from_the_cuda_source():
    lut = manifest._cuda_initializer("programs_math.cu", "const_lut", np.int64)
    assert lut.shape == (64,) and lut[0] == 17 and lut[-1] == 6765


# ---- the committed PTX is what build.sh produces ---------------------------------------------

@pytest.mark.nvcc
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
@pytest.mark.parametrize("name", ["programs_basic", "programs_math", "programs_loads", "wmma_gemm"])
def test_committed_ptx_is_current(name, tmp_path):
    version = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    if "release 13.0" not in version:
        pytest.skip("committed PTX was produced by nvcc 13.0")
    out = tmp_path / f"{name}.ptx"
    subprocess.run(["nvcc", "-O3", "-ptx", "-std=c++17", "-arch=sm_80", f"cuda/{name}.cu", "-o", str(out)],
                   cwd=KDIR, check=True)
    assert out.read_text() == (KDIR / "ptx" / "sm_80" / f"{name}.ptx").read_text()


def test_inventory_is_current():
    import inventory

    result = subprocess.run([sys.executable, str(KDIR / "inventory.py")], capture_output=True, text=True, check=True)
    assert result.stdout == (KDIR / "ptx" / "INVENTORY.txt").read_text()
    assert inventory.opcodes("@%p1 bra $L1;\n\t{add.f16 %rs1,%rs2,%rs3;\n}\n\tparam0,\n") == {"bra": 1, "add.f16": 1}
