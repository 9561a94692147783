"""Well-formedness of the kernel manifest (cases.py) against the committed PTX.

No emulation here: these tests check that every case points at PTX that exists and declares
the entry, that the argument list matches the entry's parameter list, that the reference
functions run and give arrays shaped like the outputs, and that the exact-arithmetic helpers
the references use agree with independent rational arithmetic. The Hopper cases (cases_sm90.py)
are checked the same way, plus: their `needs` agree with the instructions in the entry's PTX,
their cluster shapes with the module's directives, their tensor-map arguments with 128-byte
parameters, and the ISA layouts their references use with the ISA's tables.
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
import cases_sm90  # noqa: E402  (its reference helpers)
import inventory  # noqa: E402
from all_cases import all_cases  # noqa: E402

KDIR = manifest.KERNELS_DIR
ALL = all_cases()
# the cases of sm_90 list the instruction families they need (`needs`); those of sm_80 none
SM90 = [c for c in ALL if c.needs]
IDS = [c.name for c in ALL]
SM90_IDS = [c.name for c in SM90]

# PTX scalar parameter types -> (byte size, NumPy kind letters accepted)
PARAM_TYPES = {
    "u8": (1, "iu"), "s8": (1, "iu"), "b8": (1, "iu"),
    "u16": (2, "iu"), "s16": (2, "iu"), "b16": (2, "iuf"), "f16": (2, "f"),
    "u32": (4, "iu"), "s32": (4, "iu"), "b32": (4, "iuf"), "f32": (4, "f"),
    "u64": (8, "iu"), "s64": (8, "iu"), "b64": (8, "iuf"), "f64": (8, "f"),
}


def entry_params(ptx_text: str, entry: str, with_align: bool = False) -> list[tuple]:
    """[(type, array length or None)] of the .entry's parameters, in order (with_align: and the
    .align value or None, as a third item)."""
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\((.*?)\)", ptx_text, re.S)
    assert m, f"no .entry {entry}"
    params = []
    for decl in filter(None, (d.strip() for d in m.group(1).split(","))):
        ptype = re.search(r"\.(u8|s8|b8|u16|s16|b16|f16|u32|s32|b32|f32|u64|s64|b64|f64)\b", decl)
        assert ptype, f"unrecognised parameter declaration {decl!r}"
        length = re.search(r"\[(\d+)\]\s*$", decl)
        align = re.search(r"\.align\s+(\d+)", decl)
        item = (ptype.group(1), int(length.group(1)) if length else None)
        params.append(item + ((int(align.group(1)) if align else None),) if with_align else item)
    return params


def entry_text(ptx: str, entry: str) -> tuple[str, str]:
    """(directives between the parameter list and the body, body) of an .entry."""
    start = re.search(r"^\.visible \.entry " + re.escape(entry) + r"\(", ptx, re.M)
    assert start, f"no .entry {entry}"
    rest = ptx[start.end():]
    nxt = re.search(r"^\.(visible|weak|extern)? ?\.(entry|func) ", rest, re.M)
    text = rest[:nxt.start()] if nxt else rest
    params_end = text.index(")")
    brace = text.index("{", params_end)
    return text[params_end + 1:brace], text[brace:]


def ptx_text(rel: str) -> str:
    return (KDIR / rel).read_text()


def test_case_names_are_unique():
    assert len(IDS) == len(set(IDS))


def test_enough_sm90_cases():
    assert len(SM90) >= 22
    assert sum(c.source.startswith("sm90a_") for c in SM90) >= 10


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
        aligns = [a for _, _, a in entry_params(ptx_text(rel), case.entry, with_align=True)]
        for index, ((ptype, length), arg) in enumerate(zip(params, args)):
            where = f"{case.name} argument {index} ({ptype})"
            if isinstance(arg, manifest.TensorMapArg):
                if arg.by_pointer:  # const CUtensorMap*: a pointer to a 128-byte global buffer
                    assert ptype == "u64" and length is None, where
                else:  # CUtensorMap by value: 128 bytes, 64-byte aligned at least (alignas(128) in CUDA 13.0)
                    assert ptype == "b8" and length == 128 and (aligns[index] or 0) >= 64, where
                continue
            if length is not None:  # struct by value: .b8 array
                assert isinstance(arg, (bytes, np.void)), where
                assert (len(arg) if isinstance(arg, bytes) else arg.dtype.itemsize) == length, where
            elif isinstance(arg, np.ndarray):
                assert ptype in ("u64", "b64", "s64"), f"{where}: array for a non-pointer"
                # a device buffer: any shape, as long as its bytes are in C order (the matrix
                # cases keep their tiles 2-D)
                assert arg.flags.c_contiguous, where
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
        if not (path.stem.startswith(("programs_", "sm90", "arith_")) or path.stem == "wmma_gemm"):
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
@pytest.mark.parametrize("name,arch", [("programs_basic", "sm_80"), ("programs_math", "sm_80"),
                                       ("programs_loads", "sm_80"), ("wmma_gemm", "sm_80"),
                                       ("sm90_tma", "sm_90"), ("sm90a_wgmma", "sm_90a")])
def test_committed_ptx_is_current(name, arch, tmp_path):
    version = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    if "release 13.0" not in version:
        pytest.skip("committed PTX was produced by nvcc 13.0")
    out = tmp_path / f"{name}.ptx"
    subprocess.run(["nvcc", "-O3", "-ptx", "-std=c++17", f"-arch={arch}", f"cuda/{name}.cu", "-o", str(out)],
                   cwd=KDIR, check=True)
    assert out.read_text() == (KDIR / "ptx" / arch / f"{name}.ptx").read_text()


@pytest.mark.ptxas
@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not installed")
@pytest.mark.parametrize("rel", sorted({rel for c in SM90 for rel in c.ptx}))
def test_sm90_ptx_assembles_for_its_target(rel):
    arch = Path(rel).parent.name
    result = subprocess.run(["ptxas", f"-arch={arch}", str(KDIR / rel), "-o", "/dev/null"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr.lower(), result.stderr


# ---- Hopper cases: needs, clusters, tensor maps, ISA layouts --------------------------------------

def _family(opcode: str) -> set[str]:
    """The NEEDS families an opcode belongs to: its longest matching prefix, and
    multicast::cluster where that qualifier appears."""
    prefixes = [n for n in manifest.NEEDS if n != "multicast::cluster" and not n.startswith(".")]
    found = {max((n for n in prefixes if opcode == n or opcode.startswith((n + ".", n + "::"))), key=len,
                 default=None)}
    if "multicast::cluster" in opcode:
        found.add("multicast::cluster")
    return found - {None}


def test_needs_vocabulary():
    for case in SM90:
        assert case.needs, case.name
        unknown = set(case.needs) - set(manifest.NEEDS)
        assert not unknown, f"{case.name}: unknown needs {unknown}"
        assert len(set(case.needs)) == len(case.needs), case.name
    assert _family("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes") == \
        {"cp.async.bulk.tensor"}
    assert _family("cp.async.bulk.commit_group") == {"cp.async.bulk"}
    assert _family("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster") == \
        {"cp.async.bulk", "multicast::cluster"}
    assert _family("mbarrier.try_wait.parity.shared::cta.b64") == {"mbarrier"}
    assert _family("fence.proxy.tensormap::generic.acquire.gpu") == {"fence.proxy.tensormap"}
    assert _family("fence.proxy.async.shared::cta") == {"fence.proxy.async"}
    assert _family("ld.global.u32") == set()


@pytest.mark.parametrize("case", SM90, ids=SM90_IDS)
def test_needs_match_the_ptx(case):
    for rel in case.ptx:
        directives, body = entry_text(ptx_text(rel), case.entry)
        used = set()
        for opcode in inventory.opcodes(body):
            used |= _family(opcode)
        if ".reqnctapercluster" in directives:
            used.add(".reqnctapercluster")
        declared = set(case.needs)
        assert declared == used, f"{rel}: needs lists {sorted(declared - used)} not in the PTX; " \
                                 f"PTX uses {sorted(used - declared)} not listed"


@pytest.mark.parametrize("case", SM90, ids=SM90_IDS)
def test_cluster_shape_agrees_with_module(case):
    for rel in case.ptx:
        directives, _ = entry_text(ptx_text(rel), case.entry)
        req = re.search(r"\.reqnctapercluster\s+(\d+)\s*,\s*(\d+)\s*,\s*(\d+)", directives)
        if req:
            shape = tuple(int(x) for x in req.groups())
            assert ".explicitcluster" in directives
            assert case.cluster is None, "the module fixes the cluster; the launch must not give another"
        else:
            shape = case.cluster or (1, 1, 1)
        assert all(g % c == 0 for g, c in zip(case.grid, shape)), f"grid {case.grid} vs cluster {shape}"
        assert int(np.prod(shape)) <= 8, "portable cluster size"


@pytest.mark.parametrize("case", [c for c in SM90 if any(isinstance(a, manifest.TensorMapArg) for a in c.make_args())],
                         ids=lambda c: c.name)
def test_tensor_map_arguments(case):
    args = case.make_args()
    for arg in args:
        if not isinstance(arg, manifest.TensorMapArg):
            continue
        target = args[arg.array_index]
        assert isinstance(target, np.ndarray) and not isinstance(target, manifest.TensorMapArg)
        assert target.dtype.itemsize == arg.itemsize, f"{arg.dtype} map over a {target.dtype} array"
        view = arg.view(args)
        assert view.shape == arg.shape and np.shares_memory(view, target)
        assert len(arg.dims) == arg.rank and len(arg.strides) == arg.rank - 1
        assert arg.transfer_bytes % 16 == 0


def test_tensor_map_arg_derives_driver_order():
    arg = manifest.TensorMapArg(array_index=0, dtype="float16", shape=(3, 10, 64), box=(64, 8, 1))
    assert arg.dims == (64, 10, 3) and arg.strides == (128, 1280)
    padded = manifest.TensorMapArg(array_index=0, dtype="uint32", shape=(32, 20), box=(12, 16),
                                   byte_strides=(128, 4))
    assert padded.dims == (20, 32) and padded.strides == (128,)
    assert manifest.TensorMapArg(array_index=0, dtype="float32", shape=(8, 8, 8), box=(8, 4, 2),
                                 element_strides=(1, 2, 1)).transfer_bytes == 8 * 2 * 2 * 4
    with pytest.raises(ValueError):   # 128-byte swizzle, 256-byte inner box
        manifest.TensorMapArg(array_index=0, dtype="float32", shape=(8, 64), box=(64, 8), swizzle="128B")
    with pytest.raises(ValueError):   # stride not a multiple of 16 bytes
        manifest.TensorMapArg(array_index=0, dtype="uint8", shape=(8, 20), box=(16, 8))
    args = [np.zeros(10, np.float32)]
    with pytest.raises(ValueError):   # the view would run past the argument
        manifest.TensorMapArg(array_index=0, dtype="float32", shape=(4, 4), box=(4, 4)).view(args)


# The destination patterns of PTX ISA 9.0 "Swizzling Modes" [#tensor-swizzling-modes], transcribed:
# each row is a 128-byte line of shared memory, each entry the 16-byte source chunk stored there.
ISA_SWIZZLE_TABLES = {
    32: [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6]],
    64: [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6], [2, 3, 0, 1, 6, 7, 4, 5], [3, 2, 1, 0, 7, 6, 5, 4]],
    128: [[0, 1, 2, 3, 4, 5, 6, 7], [1, 0, 3, 2, 5, 4, 7, 6], [2, 3, 0, 1, 6, 7, 4, 5], [3, 2, 1, 0, 7, 6, 5, 4],
          [4, 5, 6, 7, 0, 1, 2, 3], [5, 4, 7, 6, 1, 0, 3, 2], [6, 7, 4, 5, 2, 3, 0, 1], [7, 6, 5, 4, 3, 2, 1, 0]],
}


@pytest.mark.parametrize("span", [32, 64, 128])
def test_swizzle_reference_reproduces_the_isa_tables(span):
    table = np.array(ISA_SWIZZLE_TABLES[span])
    lines = 2 * len(table)                           # two repetitions of the pattern
    chunk_ids = np.repeat(np.arange(lines * 8) % 8, 16).astype(np.uint8)   # byte -> its chunk number
    out = cases_sm90.swizzle_tile(chunk_ids, span).reshape(lines, 8, 16)
    assert (out == out[:, :, :1]).all()              # 16-byte chunks move whole
    assert np.array_equal(out[:, :, 0], np.concatenate([table, table]))
    assert np.array_equal(cases_sm90.swizzle_tile(chunk_ids, 0), chunk_ids)


def test_e4m3_encoding():
    values = np.array([1.0, -2.0, 0.5, 1.5, -0.5, 0.0, 448.0, 2.0 ** -6])
    # sign | exponent (bias 7) << 3 | mantissa; 448 = 1.75 * 2^8 is the largest finite e4m3
    assert cases_sm90.e4m3_bits(values).tolist() == [0x38, 0xC0, 0x30, 0x3C, 0xB0, 0x00, 0x7E, 0x08]
    with pytest.raises(ValueError):
        cases_sm90.e4m3_bits(np.array([1.0625]))


def test_inventory_is_current():
    import inventory

    result = subprocess.run([sys.executable, str(KDIR / "inventory.py")], capture_output=True, text=True, check=True)
    assert result.stdout == (KDIR / "ptx" / "INVENTORY.txt").read_text()
    assert inventory.opcodes("@%p1 bra $L1;\n\t{add.f16 %rs1,%rs2,%rs3;\n}\n\tparam0,\n") == {"bra": 1, "add.f16": 1}


def test_gemm_ws_size_is_a_parameter():
    args = cases_sm90.gemm_ws_args(256, 128, 192)
    (gx, gy, _), block = cases_sm90.gemm_ws_launch(256, 128)
    assert (gx, gy) == (1, 2) and block == (384, 1, 1)
    assert args[2].size == 256 * 192 and args[3].size == 128 * 192 and args[4].size == 256 * 128
    assert args[0].dims == (192, 256) and args[1].dims == (192, 128)
    (d,) = cases_sm90.gemm_ws_reference(args)
    a = args[2].reshape(256, 192).astype(np.float64)
    bt = args[3].reshape(128, 192).astype(np.float64)
    assert np.array_equal(d.reshape(256, 128), (a @ bt.T).astype(np.float32))
    with pytest.raises(ValueError):
        cases_sm90.gemm_ws_args(100, 128, 64)
