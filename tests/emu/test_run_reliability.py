"""`RawModule` and `ptxld run` on hostile input: read-only arrays, bad files, launches outside
CUDA's limits, mistyped scalars, null pointers, output paths that cannot be written. Each error
names the place and the cause; results are never lost and inputs are never rewritten."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from cli_runner import CliRunner

import ptxld
from ptxld.cli import main
from ptxld.emu import errors as E
from ptxld.emu.cli import _Progress
from ptxld.spec import launch as L

VADD = str(Path(__file__).resolve().parents[1] / "kernels/ptx/sm_90/programs_basic.ptx")
VADD_NAME = "_Z7vec_addPKfS0_Pfi"

COPY = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 a, .param .u64 b, .param .u32 n)
{
.reg .b64 %rd<4>;
.reg .b32 %r<4>;
ld.param.u64 %rd1, [a];
ld.param.u64 %rd2, [b];
ld.param.u32 %r2, [n];
ld.global.u32 %r1, [%rd1];
add.u32 %r1, %r1, %r2;
st.global.u32 [%rd2], %r1;
ret;
}
"""


@pytest.fixture(scope="module")
def copy_kernel():
    return ptxld.RawModule(code=COPY).get_function("k")


def test_read_only_arrays_are_inputs(copy_kernel, tmp_path):
    a = np.array([5], np.uint32)
    a.setflags(write=False)
    b = np.zeros(1, np.uint32)
    stats = copy_kernel(1, 1, [a, b, 1])
    assert b[0] == 6 and stats.written == (1,)
    np.save(tmp_path / "a.npy", np.array([7], np.uint32))
    mapped = np.load(tmp_path / "a.npy", mmap_mode="r")
    copy_kernel(1, 1, [mapped, b, 1])
    assert b[0] == 8


def test_a_store_into_a_read_only_array_faults(copy_kernel):
    a = np.array([5], np.uint32)
    ro = np.zeros(1, np.uint32)
    ro.setflags(write=False)
    with pytest.raises(E.ReadOnlyMemoryError, match="read-only"):
        copy_kernel(1, 1, [a, ro, 1])


@pytest.mark.parametrize("address, words", [(0, "null pointer"), (16, "near null")])
def test_null_pointers_are_named(copy_kernel, address, words):
    with pytest.raises(E.OutOfBoundsError) as e:
        copy_kernel(1, 1, [np.uint64(address), np.zeros(1, np.uint32), 1])
    assert words in str(e.value) and "bytes before" not in str(e.value)


@pytest.mark.parametrize("args, words", [
    ([np.zeros(1, np.uint32), np.zeros(1, np.uint32), np.float32(1000)], "floating-point"),
    ([np.zeros(1, np.uint32), np.zeros(1, np.uint32), 2**32], "does not fit"),
    ([np.zeros(1, np.uint32), np.zeros(1, np.uint32), -1], "does not fit"),
    ([np.array(["x", "y"], object), np.zeros(1, np.uint32), 1], "objects"),
])
def test_scalar_arguments_are_type_and_range_checked(copy_kernel, args, words):
    with pytest.raises(E.LaunchError, match=words) as e:
        copy_kernel(1, 1, args)
    assert "`n`" in str(e.value) or "objects" in words


@pytest.mark.parametrize("grid, block, cluster, words", [
    ("12", 1, 1, "integer"),
    (1.5, 1, 1, "integer"),
    (L.MAX_GRID[0] + 1, 1, 1, "grid x"),
    ((65536, 65536, 65536), 1, 1, "grid y"),
    (1, 1025, 1, "1024"),
    (1, (1, 1, 65), 1, "block z"),
    (8, 1, 2, "sm_90"),               # clusters on an sm_80 module
])
def test_launches_outside_cuda_limits_are_refused(copy_kernel, grid, block, cluster, words):
    a, b = np.zeros(1, np.uint32), np.zeros(1, np.uint32)
    with pytest.raises(E.LaunchError, match=words):
        copy_kernel(grid, block, [a, b, 1], cluster=cluster)
    assert not b.any()


def test_cluster_limit_is_named_for_sm90():
    k = ptxld.RawModule(code=COPY.replace("sm_80", "sm_90")).get_function("k")
    with pytest.raises(E.LaunchError, match=str(L.MAX_CLUSTER_CTAS)):
        k(64, 1, [np.zeros(1, np.uint32), np.zeros(1, np.uint32), 1], cluster=64)


@pytest.mark.parametrize("kwargs", [{"max_steps": 0}, {"max_steps": -5}, {"max_call_depth": 0},
                                    {"batch_threads": 0}])
def test_budgets_must_be_positive(copy_kernel, kwargs):
    with pytest.raises(E.LaunchError, match="positive"):
        copy_kernel(1, 1, [np.zeros(1, np.uint32), np.zeros(1, np.uint32), 1], **kwargs)


def test_a_huge_grid_stays_within_the_memory_budget():
    """Batches shrink to the budget and the CTA order is never built for the whole grid: a
    2^31-CTA launch starts at once and stops at the step budget, not the OS's memory limit."""
    k = ptxld.RawModule(code=COPY, memory_budget=64 << 20).get_function("k")
    a, b = np.zeros(1, np.uint32), np.zeros(1, np.uint32)
    with pytest.raises(E.StepBudgetError):
        k(L.MAX_GRID[0], 1024, [a, b, 1], max_steps=200)
    assert k.mod.gmem.used <= 64 << 20


def test_memory_budget_too_small_for_one_cta_is_a_budget_error():
    k = ptxld.RawModule(code=COPY, memory_budget=4096).get_function("k")
    with pytest.raises(E.MemoryBudgetError):
        k(1, 1024, [np.zeros(1, np.uint32), np.zeros(1, np.uint32), 1])


def test_raw_module_path_reports_bad_files(tmp_path):
    bad = tmp_path / "bad.ptx"
    bad.write_bytes(b".version 8.0\n// caf\xe9\n")
    with pytest.raises(E.ModuleError, match="UTF-8"):
        ptxld.RawModule(path=bad)
    with pytest.raises(E.ModuleError, match="ELF"):
        ptxld.RawModule(path="/bin/ls" if os.path.exists("/bin/ls") else bad)


def _run(*args, **kw):
    return CliRunner().invoke(main, ["run", *args], **kw)


def _buffers(tmp_path, n=8):
    a, b = np.arange(n, dtype=np.float32), np.full(n, 0.5, np.float32)
    for name, v in (("a", a), ("b", b), ("c", np.zeros(n, np.float32))):
        np.save(tmp_path / f"{name}.npy", v)
    return [str(tmp_path / f"{x}.npy") for x in "abc"]


def test_run_rewrites_only_what_the_kernel_wrote(tmp_path):
    paths = _buffers(tmp_path)
    before = {p: os.stat(p).st_mtime_ns for p in paths}
    os.utime(paths[0], ns=(1, 1))
    os.utime(paths[1], ns=(1, 1))
    r = _run(VADD, "-k", VADD_NAME, "-b", "8", *paths, "s32:8")
    assert r.exit_code == 0, r.output
    assert os.stat(paths[0]).st_mtime_ns == 1 and os.stat(paths[1]).st_mtime_ns == 1
    assert os.stat(paths[2]).st_mtime_ns != before[paths[2]] or np.load(paths[2]).any()
    assert np.array_equal(np.load(paths[2]), np.arange(8, dtype=np.float32) + 0.5)


def test_run_checks_the_output_directory_before_running(tmp_path):
    paths = _buffers(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = _run(VADD, "-k", VADD_NAME, "-b", "8", *paths, "s32:8", "--out", str(blocker / "sub"))
    assert r.exit_code == 2 and "--out" in r.output and "internal error" not in r.output
    assert "thread-instructions" not in r.output   # nothing ran


@pytest.mark.parametrize("content, words", [
    (b"\x7fELF\x02\x01\x01" + bytes(64), "ELF"),
    (bytes(range(256)) * 4, "binary"),
    (b".version 8.0\n// caf\xe9\n", "UTF-8"),
])
def test_run_refuses_files_that_are_not_ptx(tmp_path, content, words):
    f = tmp_path / "k.ptx"
    f.write_bytes(content)
    r = _run(str(f), "-k", "k", "-b", "1")
    assert r.exit_code == 2 and words in r.output and "internal error" not in r.output


@pytest.mark.parametrize("make", ["text", "pickle"])
def test_run_refuses_npy_files_that_are_not_arrays_of_numbers(tmp_path, make):
    f = tmp_path / "x.npy"
    if make == "text":
        f.write_text("hello\n")
    else:
        np.save(f, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    r = _run(VADD, "-k", VADD_NAME, "-b", "1", str(f))
    assert r.exit_code == 2 and "x.npy" in r.output and "internal error" not in r.output


@pytest.mark.parametrize("arg", ["u32:99999999999", "u32:-1", "s8:128", "b16:0x10000"])
def test_run_refuses_scalars_that_do_not_fit(tmp_path, arg):
    r = _run(VADD, "-k", VADD_NAME, "-b", "1", *_buffers(tmp_path), arg)
    assert r.exit_code == 2 and "does not fit" in r.output


@pytest.mark.parametrize("option", ["--max-steps", "--memory-budget", "--max-call-depth"])
def test_run_budgets_are_options_with_defaults(tmp_path, option):
    help_text = _run("--help").output
    assert option in help_text and "default" in help_text
    r = _run(VADD, "-k", VADD_NAME, "-b", "8", *_buffers(tmp_path), "s32:8", option, "0")
    assert r.exit_code == 2 and "positive" in r.output


def test_run_reports_limits_by_name(tmp_path):
    r = _run(VADD, "-k", VADD_NAME, "-b", "1024", "-g", "2147483648", *_buffers(tmp_path), "s32:8")
    assert r.exit_code == 1 and "grid x" in r.output and "2147483647" in r.output


class _FakeBatch:
    exited = np.zeros(4, bool)
    N, steps, thread_instructions = 4, 1, 1


def test_progress_redraws_at_most_ten_times_a_second(monkeypatch):
    clock = iter(i * 0.001 for i in range(10_000))
    monkeypatch.setattr("ptxld.emu.cli.time.perf_counter", lambda: next(clock))
    p = _Progress()
    drawn = []
    monkeypatch.setattr("ptxld.emu.cli.echo", lambda *a, **k: drawn.append(a))
    for _ in range(5000):        # 5 simulated seconds of updates, one a millisecond
        p.update(_FakeBatch())
    assert 30 <= len(drawn) <= 41  # from 1 s on, ten a second
