"""Memory-report figures of access patterns, against counts worked out by hand (in the comments)
or with NumPy from the definitions in docs/memory-report.md. Kernels:
tests/kernels/cuda/memreport_access.cu (nvcc 13.0 PTX under tests/kernels/ptx/sm_80)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ptxld
from ptxld.memreport import ReportOptions

PTX = Path(__file__).resolve().parents[1] / "kernels" / "ptx" / "sm_80" / "memreport_access.ptx"


@pytest.fixture(scope="module")
def mod():
    return ptxld.RawModule(path=PTX)


def lines_of(report, opcode_start: str) -> list[dict]:
    """The report's lines whose instruction starts with `opcode_start`, in program order."""
    return [r for r in report.lines if r["instruction"].startswith(opcode_start)]


def one(report, opcode_start: str) -> dict:
    got = lines_of(report, opcode_start)
    assert len(got) == 1, [r["instruction"] for r in report.lines]
    return got[0]


def strided(mod, offset, stride, **kw):
    src = np.arange(2048, dtype=np.float32)
    out = np.zeros(32, np.float32)
    rep = mod.get_function("load_f32_strided")(1, 32, [src, out, np.int32(offset), np.int32(stride)],
                                                memory_report=True, **kw)
    np.testing.assert_array_equal(out, src[offset + np.arange(32) * stride])
    return one(rep, "ld.global")


@pytest.mark.parametrize("offset,stride,sectors,ideal", [
    (0, 1, 4, 4),      # 32 lanes x 4 B = 128 contiguous bytes from an aligned base: 4 sectors
    (0, 2, 8, 4),      # every other word: 256 bytes spanned, 8 sectors, still 128 bytes wanted
    (0, 32, 32, 4),    # 128-byte stride: one sector per lane
    (1, 1, 5, 4),      # base 4 bytes past a sector boundary: [4, 132) crosses 5 sectors
    (5, 0, 1, 1),      # broadcast: every lane the same word, 4 distinct bytes
])
def test_f32_strided_loads(mod, offset, stride, sectors, ideal):
    r = strided(mod, offset, stride)
    assert r["executions"] == 1 and r["threads"] == 32 and r["requests"] == 1
    assert (r["sectors"], r["sectors_ideal"]) == (sectors, ideal)
    assert r["excess_sectors"] == sectors - ideal
    assert r["bytes_requested"] == 128
    assert r["efficiency"] == pytest.approx(128 / (32 * sectors), abs=1e-4)
    assert r["wavefronts"] == 0 and r["bank_conflicts"] == 0


@pytest.mark.parametrize("name,dtype,size", [("load_u8", np.uint8, 1), ("load_u16", np.uint16, 2),
                                             ("load_u64", np.uint64, 8)])
def test_unit_stride_widths(mod, name, dtype, size):
    src = (np.arange(64) * 7 % 251).astype(dtype)
    out = np.zeros(32, np.uint64 if size == 8 else np.uint32)
    rep = mod.get_function(name)(1, 32, [src, out], memory_report=True)
    np.testing.assert_array_equal(out, src[:32].astype(out.dtype))
    r = one(rep, "ld.global")
    # 32 lanes x size bytes, contiguous from an aligned base
    assert r["sectors"] == r["sectors_ideal"] == max(1, 32 * size // 32)
    assert r["requests"] == 1 and r["bytes_requested"] == 32 * size


def test_vector_load_against_four_scalar_loads(mod):
    src = np.arange(256, dtype=np.float32)
    out4 = np.zeros(128, np.float32)
    v4 = mod.get_function("load_f32x4")(1, 32, [src, out4], memory_report=True)
    np.testing.assert_array_equal(out4, src[:128])
    r = one(v4, "ld.global")
    # one 16-byte load per lane: 512 contiguous bytes, 16 sectors, one request
    assert (r["requests"], r["sectors"], r["sectors_ideal"]) == (1, 16, 16)
    out = np.zeros(32, np.float32)
    sc = mod.get_function("load_f32_four_scalars")(1, 32, [src, out], memory_report=True)
    np.testing.assert_allclose(out, src[:128].reshape(32, 4).sum(axis=1))
    loads = lines_of(sc, "ld.global")
    assert len(loads) == 4
    for r in loads:
        # lane t reads 4 bytes at 16 t + 4 k: two lanes per sector, 16 sectors for 128 bytes
        assert (r["requests"], r["sectors"], r["sectors_ideal"]) == (1, 16, 4)
    assert sum(r["sectors"] for r in loads) == 64 and sum(r["requests"] for r in loads) == 4


def test_random_gather_matches_numpy(mod):
    rng = np.random.default_rng(7)
    src = np.arange(4096, dtype=np.float32)
    idx = rng.integers(0, 4096, 32).astype(np.int32)
    idx[5] = idx[9]                      # two lanes on one word
    out = np.zeros(32, np.float32)
    rep = mod.get_function("gather_f32")(1, 32, [src, idx, out], memory_report=True)
    np.testing.assert_array_equal(out, src[idx])
    idx_load, gather = lines_of(rep, "ld.global")
    assert (idx_load["sectors"], idx_load["sectors_ideal"]) == (4, 4)
    byte = idx.astype(np.int64) * 4                  # the base is 256-byte aligned
    assert gather["sectors"] == len(np.unique(byte // 32))
    assert gather["sectors_ideal"] == -(-len(np.unique(byte)) * 4 // 32)


@pytest.mark.parametrize("kernel,read_wavefronts", [("transpose_unpadded", 32), ("transpose_padded", 1)])
def test_tile_transpose_bank_conflicts(mod, kernel, read_wavefronts):
    src = np.arange(1024, dtype=np.float32)
    out = np.zeros(1024, np.float32)
    rep = mod.get_function(kernel)(1, (32, 32), [src, out], memory_report=True)
    np.testing.assert_array_equal(out, src.reshape(32, 32).T.reshape(-1))
    store, load = one(rep, "st.shared"), one(rep, "ld.shared")
    # 32 warps; the store writes a row (32 consecutive words, one per bank): 1 wavefront each
    assert (store["executions"], store["wavefronts"], store["bank_conflicts"]) == (32, 32, 0)
    # the load reads a column: word 32 x + y (unpadded) sits in bank y for every lane x, a
    # 32-way conflict; with a 33-word row, word 33 x + y is in bank (x + y) mod 32, all distinct
    assert load["wavefronts"] == 32 * read_wavefronts
    assert load["wavefronts_ideal"] == 32
    assert load["bank_conflicts"] == 32 * (read_wavefronts - 1)
    glob = one(rep, "ld.global")
    assert (glob["requests"], glob["sectors"], glob["sectors_ideal"]) == (32, 128, 128)
    names = [f.rule for f in rep.findings()]
    assert ("shared-bank-conflicts" in names) == (read_wavefronts > 1)
    assert "uncoalesced-global-accesses" not in names


def test_shared_access_widths_and_broadcast(mod):
    src = np.arange(128, dtype=np.uint32)
    out = np.zeros(32, np.uint32)
    rep = mod.get_function("shared_widths")(1, 32, [src.view(np.uint8).copy().view(np.uint32), out],
                                            memory_report=True)
    b8 = src.view(np.uint8)
    t = np.arange(32)
    words = src
    want = (b8[t].astype(np.uint64) + words[t] + words[2 * t] + words[2 * t + 1] + words[4 * t]
            + words[4 * t + 3] + words[0]) & 0xFFFFFFFF
    np.testing.assert_array_equal(out, want.astype(np.uint32))
    by_op = {r["instruction"].split()[0]: r for r in rep.lines}
    # (wavefronts, ideal): 1-byte loads share 8 words (one phase); 4-byte: 32 banks, one phase;
    # 8-byte: two phases of 16 lanes x 8 bytes; 16-byte: four phases of 8 lanes x 16 bytes
    assert (by_op["ld.shared.u8"]["wavefronts"], by_op["ld.shared.u8"]["wavefronts_ideal"]) == (1, 1)
    assert (by_op["ld.shared.v2.u32"]["wavefronts"], by_op["ld.shared.v2.u32"]["wavefronts_ideal"]) == (2, 2)
    assert (by_op["ld.shared.v4.u32"]["wavefronts"], by_op["ld.shared.v4.u32"]["wavefronts_ideal"]) == (4, 4)
    assert (by_op["st.shared.v4.u32"]["wavefronts"], by_op["st.shared.v4.u32"]["bank_conflicts"]) == (4, 0)
    u32 = lines_of(rep, "ld.shared.u32")
    assert [(r["wavefronts"], r["bank_conflicts"]) for r in u32] == [(1, 0), (1, 0)]  # b32[t]; b32[0]: broadcast
    assert rep.total["bank_conflicts"] == 0


@pytest.mark.parametrize("size_kernel,group", [("load_f32_strided", 8), ("load_u64", 4),
                                               ("load_f32x4", 2)])
def test_requests_on_sm_6x_follow_thread_groups(mod, size_kernel, group):
    if size_kernel == "load_f32_strided":
        args = [np.zeros(64, np.float32), np.zeros(32, np.float32), np.int32(0), np.int32(1)]
    elif size_kernel == "load_u64":
        args = [np.zeros(32, np.uint64), np.zeros(32, np.uint64)]
    else:
        args = [np.zeros(128, np.float32), np.zeros(128, np.float32)]
    rep = mod.get_function(size_kernel)(1, 32, args, memory_report=ReportOptions(sm=61))
    # sm_5x/6x: one request per group of 8/4/2 lanes for 4/8/16-byte accesses
    assert one(rep, "ld.global")["requests"] == 32 // group
    rep = mod.get_function(size_kernel)(1, 20, args, memory_report=ReportOptions(sm=61))
    assert one(rep, "ld.global")["requests"] == -(-20 // group)


def test_report_dict_keys_and_kernel_total(mod):
    src = np.arange(2048, dtype=np.float32)
    out = np.zeros(64, np.float32)
    rep = mod.get_function("load_f32_strided")(2, 32, [src, out, np.int32(0), np.int32(32)],
                                               memory_report=True)
    d = rep.to_dict()
    r = next(x for x in d["lines"] if x["instruction"].startswith("ld.global"))
    for key in ("line", "requests", "sectors", "sectors_ideal", "wavefronts", "bank_conflicts",
                "l1_hits", "l1_misses", "l2_hits", "l2_misses", "dram_sectors", "efficiency"):
        assert key in r
    assert r["executions"] == 2 and r["sectors"] == 64
    assert d["total"]["sectors"] == sum(x["sectors"] for x in d["lines"])
    assert d["findings"][0]["rule"] == "uncoalesced-global-accesses"
    assert "model" in d["cache_model"]["note"]
    assert rep.stats.threads == 64


@pytest.mark.nvcc
@pytest.mark.parametrize("name", ["memreport_access", "memreport_cache"])
def test_committed_ptx_is_what_nvcc_makes(name, tmp_path):
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not installed")
    version = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    if "release 13.0" not in version:
        pytest.skip("the committed PTX was produced by nvcc 13.0")
    kdir = PTX.parents[2]
    out = tmp_path / f"{name}.ptx"
    # the command recorded in tests/kernels/ptx/COMMANDS.txt
    subprocess.run(["nvcc", "-O3", "-ptx", "-std=c++17", "-arch=sm_80", f"cuda/{name}.cu", "-o", str(out)],
                   cwd=kdir, check=True)
    assert out.read_text() == (kdir / "ptx" / "sm_80" / f"{name}.ptx").read_text()
    assert f"-arch=sm_80 cuda/{name}.cu -o ptx/sm_80/{name}.ptx" in (kdir / "ptx" / "COMMANDS.txt").read_text()
