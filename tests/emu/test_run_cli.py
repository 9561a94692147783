"""`ptxld run`: .npy buffers and typed scalars in, buffers written back, summary, faults."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from cli_runner import CliRunner

from ptxld.cli import main

PTX = str(Path(__file__).resolve().parents[1] / "kernels/ptx/sm_90/programs_basic.ptx")


def _buffers(tmp_path, n=300):
    a = np.arange(n, dtype=np.float32)
    b = np.full(n, 0.5, np.float32)
    for name, v in (("a", a), ("b", b), ("c", np.zeros(n, np.float32))):
        np.save(tmp_path / f"{name}.npy", v)
    return a, b


def test_run_writes_back_in_place(tmp_path):
    a, b = _buffers(tmp_path)
    r = CliRunner().invoke(main, ["run", PTX, "--kernel", "_Z7vec_addPKfS0_Pfi", "--grid", "3",
                                  "--block", "128", str(tmp_path / "a.npy"), str(tmp_path / "b.npy"),
                                  str(tmp_path / "c.npy"), "s32:300"])
    assert r.exit_code == 0, r.output
    assert np.array_equal(np.load(tmp_path / "c.npy"), a + b)
    assert "384 threads" in r.output and "thread-instructions" in r.output


def test_run_out_dir_and_fault_exit_code(tmp_path):
    a, b = _buffers(tmp_path)
    out = tmp_path / "out"
    args = ["run", PTX, "--kernel", "_Z7vec_addPKfS0_Pfi", "--grid", "3", "--block", "128",
            str(tmp_path / "a.npy"), str(tmp_path / "b.npy"), str(tmp_path / "c.npy")]
    r = CliRunner().invoke(main, args + ["s32:300", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert np.array_equal(np.load(out / "c.npy"), a + b)
    assert not np.load(tmp_path / "c.npy").any()
    r = CliRunner().invoke(main, args + ["s32:384"])
    assert r.exit_code == 1
    assert "OutOfBoundsError" in r.output and "programs_basic.ptx:" in r.output


def test_run_rejects_bad_scalars(tmp_path):
    r = CliRunner().invoke(main, ["run", PTX, "--kernel", "_Z7vec_addPKfS0_Pfi", "--block", "1", "x:3"])
    assert r.exit_code == 2
