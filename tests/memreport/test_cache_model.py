"""The cache model: each cache operator, eviction priority, cache policy, prefetch size and cache
instruction changes L1/L2 hits the way docs/memory-report.md (restating the PTX ISA) says.
Kernels: tests/kernels/cuda/memreport_cache.cu, one warp each, so accesses run in program order.

The caches are made small so the effects show with small buffers: L1 4 KiB (8 sets x 4 ways),
L2 16 KiB (32 sets x 4 ways). A 4 KiB tile is 32 lines (one per L2 set); a 64 KiB stream puts 16
lines through every L2 set."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ptxld
from ptxld.memreport import CacheConfig, ReportOptions
from ptxld.emu.trace import AccessHints
from ptxld.memreport.cache import SectorCache
from ptxld.memreport.hierarchy import Counts, MemorySystem
from ptxld.memreport.policy import plan_for

PTX = Path(__file__).resolve().parents[1] / "kernels" / "ptx" / "sm_80" / "memreport_cache.ptx"
SMALL = ReportOptions(cache=CacheConfig("test", l1_size=4096, l1_ways=4, l2_size=16384, l2_ways=4))
TILE, STREAM = 1024, 16384            # floats: 32 lines, 512 lines
TILE_SECTORS = TILE * 4 // 32


@pytest.fixture(scope="module")
def mod():
    return ptxld.RawModule(path=PTX)


def loads(rep) -> list[dict]:
    return [r for r in rep.lines if r["instruction"].startswith("ld.global")]


def tile_stream(mod, kernel):
    tile = np.arange(TILE, dtype=np.float32)
    stream = np.ones(STREAM, np.float32)
    out = np.zeros(32, np.float32)
    rep = mod.get_function(kernel)(1, 32, [tile, np.int32(TILE), stream, np.int32(STREAM), out],
                                   memory_report=SMALL)
    lanes = np.arange(32)
    want = (tile.reshape(-1, 32).sum(axis=0) * 2 + stream.reshape(-1, 32).sum(axis=0)
            if kernel != "prefetch_last_stream_cg" else tile.reshape(-1, 32).sum(axis=0)
            + stream.reshape(-1, 32).sum(axis=0))
    np.testing.assert_allclose(out, want[lanes], rtol=1e-6)
    return rep


@pytest.mark.parametrize("kernel,survivors", [
    ("tile_last_stream_cs", TILE_SECTORS),    # evict_last tile outlives an evict_first (.cs) stream
    ("tile_first_stream_cs", 0),              # both evict_first: least recently used goes first
    ("tile_last_stream_cg", TILE_SECTORS),    # evict_last outlives a normal stream too
    ("tile_normal_stream_cg", 0),             # both normal: plain LRU, the older tile goes
    ("tile_range_stream_cg", TILE_SECTORS // 2),   # range policy: first half evict_last
    ("tile_applypriority_stream_cg", 0),      # evict_last reset to normal by applypriority
    ("prefetch_last_stream_cg", TILE_SECTORS),     # prefetch.L2::evict_last, no load needed
])
def test_reused_tile_survives_a_stream_by_priority(mod, kernel, survivors):
    rep = tile_stream(mod, kernel)
    reread = loads(rep)[-1]
    assert reread["instruction"].startswith("ld.global.cg")
    assert reread["l2_hits"] == survivors
    assert reread["l2_misses"] == TILE_SECTORS - survivors
    assert reread["l1_hits"] == reread["l1_misses"] == 0       # .cg: L1 not involved
    assert reread["dram_read_sectors"] == TILE_SECTORS - survivors


def test_createpolicy_fraction_picks_lines_by_the_documented_hash(mod):
    rep = tile_stream(mod, "tile_fraction_stream_cg")
    first = loads(rep)[0]
    lanes, addr, _, space = rep.samples[first["line"]]
    base = int(addr.min())
    # the rule in docs: line L is in the primary fraction f when
    # ((L * 0x9E3779B97F4A7C15) mod 2^64) >> 11, divided by 2^53, is below f
    lines = [(base >> 7) + k for k in range(TILE * 4 // 128)]
    primary = [((ln * 0x9E3779B97F4A7C15) % (1 << 64) >> 11) / (1 << 53) < 0.5 for ln in lines]
    assert 0 < sum(primary) < len(lines)          # a real split, so the test can tell
    reread = loads(rep)[-1]
    assert reread["l2_hits"] == 4 * sum(primary)    # evict_last lines stay, evict_first go
    assert first["hints"] == ".L1::no_allocate .L2::cache_hint" and reread["hints"] == ".cg"


def read_twice(mod, kernel, n=256):
    src = np.arange(n, dtype=np.float32)
    out = np.zeros(32, np.float32)
    rep = mod.get_function(kernel)(1, 32, [src, np.int32(n), out], memory_report=SMALL)
    np.testing.assert_allclose(out, 2 * src.reshape(-1, 32).sum(axis=0))
    first, second = loads(rep)
    return first, second


def hits(r):
    return (r["l1_hits"], r["l1_misses"], r["l2_hits"], r["l2_misses"], r["dram_read_sectors"])


@pytest.mark.parametrize("kernel,first,second", [
    # 256 floats = 32 sectors. (L1 hits, L1 misses, L2 hits, L2 misses, DRAM sectors read)
    ("twice_ca", (0, 32, 0, 32, 32), (32, 0, 0, 0, 0)),      # .ca: the second read hits L1
    ("twice_cg", (0, 0, 0, 32, 32), (0, 0, 32, 0, 0)),       # .cg: never in L1, hits L2
    ("twice_no_allocate", (0, 32, 0, 32, 32), (0, 32, 32, 0, 0)),   # looked up, not allocated
    ("twice_cv", (0, 32, 0, 32, 32), (0, 32, 0, 32, 32)),    # .cv: fetched again every time
])
def test_cache_operators_on_a_second_read(mod, kernel, first, second):
    a, b = read_twice(mod, kernel)
    assert hits(a) == first
    assert hits(b) == second


@pytest.mark.parametrize("kernel,dram_first,second_hits", [
    ("prefetch_64b", 32 * 2, 0),      # 64-byte blocks: sectors 0-1 of each lane's 256 bytes
    ("prefetch_256b", 32 * 8, 32),    # 256-byte blocks: the sector 64 bytes on is already there
])
def test_prefetch_size_fills_l2(mod, kernel, dram_first, second_hits):
    src = np.arange(64 * 32, dtype=np.float32)
    out = np.zeros(32, np.float32)
    rep = mod.get_function(kernel)(1, 32, [src, out], memory_report=SMALL)
    t = np.arange(32)
    np.testing.assert_allclose(out, src[64 * t] + src[64 * t + 16])
    first, second = loads(rep)
    assert first["l2_misses"] == 32 and first["dram_read_sectors"] == dram_first
    assert second["l2_hits"] == second_hits and second["l2_misses"] == 32 - second_hits


def test_discard_drops_dirty_lines_without_writing_back(mod):
    buf = np.zeros(256, np.float32)
    out = np.zeros(32, np.float32)
    rep = mod.get_function("write_discard_read")(1, 32, [buf, np.int32(256), out], memory_report=SMALL)
    store = next(r for r in rep.lines if r["instruction"].startswith("st.global") and r["executions"] == 8)
    assert store["l2_misses"] == 32             # written sectors allocated in L2, not fetched
    assert store["dram_read_sectors"] == 0
    reread = loads(rep)[-1]
    assert reread["l2_misses"] == 32 and reread["l2_hits"] == 0
    assert rep.total["dram_write_sectors"] == 0


def test_sector_cache_replacement_order():
    # one set of 2 ways: an evict_last line stays while evict_first and normal lines come and go
    c = SectorCache(256, 2)
    c.fill(0, 0b1111, 2)          # evict_last
    c.fill(1, 0b0001, 0)          # evict_first
    c.fill(2, 0b0001, 1)          # normal: evicts line 1 (lowest class), not the older line 0
    assert c.present(0) and not c.present(1) and c.present(2)
    c.fill(3, 0b0001, 1)          # normal: evicts line 2 (the only normal one, least recent)
    assert c.present(0) and c.present(3) and not c.present(2)
    assert c.invalidate(0, 0b0011) == 2 and c.present(0) == 0b1100


def test_cache_config_rejects_impossible_geometry():
    with pytest.raises(ValueError, match="sets"):
        CacheConfig(l1_size=1000)


def test_a_plain_access_keeps_a_protected_line():
    # L2 of one set with 2 ways. Line 0 comes in evict_last, is read again by a plain ld.cg (no
    # eviction qualifier: the model leaves its class alone), then two more lines pass: the plain
    # one (line 1) is the victim, line 0 stays.
    mem = MemorySystem(CacheConfig("t", l1_size=512, l1_ways=4, l2_size=256, l2_ways=2))
    last = plan_for("ld", ".global", AccessHints(cop=".cg", l2=".L2::evict_last"))
    plain = plan_for("ld", ".global", AccessHints(cop=".cg"))
    n = Counts()
    mem.access(last, 0, 0, 0b1111, last.l2_priority, n)
    mem.access(plain, 0, 0, 0b1111, plain.l2_priority, n)
    assert n.l2_hits == 4
    mem.access(plain, 0, 1, 0b1111, plain.l2_priority, n)
    mem.access(plain, 0, 2, 0b1111, plain.l2_priority, n)
    assert mem.l2.present(0) == 0b1111 and not mem.l2.present(1)


def test_memory_report_option_types(mod):
    k = mod.get_function("twice_ca")
    args = [np.zeros(32, np.float32), np.int32(32), np.zeros(32, np.float32)]
    assert k(1, 32, args, memory_report={"cache": "sm_90"}).config.name == "sm_90"
    with pytest.raises(TypeError, match="memory_report"):
        k(1, 32, args, memory_report="yes")
    with pytest.raises(ValueError, match="preset"):
        k(1, 32, args, memory_report={"cache": "sm_70"})
