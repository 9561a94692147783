"""The benchmark's per-thread Python baseline (benchmarks/scalar_baseline.py) is a real
interpreter: on every kernel shape it runs, at the small test size, it reproduces the NumPy
reference, and it executes as many thread-instructions as the emulator counts (so the emulator /
baseline ratios in BENCHMARKS.md compare two working programs doing the same work)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cases import KERNELS_DIR, assert_matches  # noqa: E402
from cases_bench import CASES_BENCH  # noqa: E402
from scalar_baseline import ScalarInterpreter  # noqa: E402

import ptxld  # noqa: E402


@pytest.mark.parametrize("case", CASES_BENCH, ids=[c.name for c in CASES_BENCH])
def test_baseline_reproduces_reference(case):
    module = ptxld.parse((KERNELS_DIR / case.ptx[0]).read_text())
    interp = ScalarInterpreter(module, case.entry)
    args = case.make_args()
    expected = case.reference(args)
    mem, params, where = bytearray(), {}, {}
    for k, (name, a) in enumerate(zip(interp.params, args)):
        if isinstance(a, np.ndarray):
            mem.extend(bytes(-len(mem) % 256))
            where[k] = len(mem)
            params[name] = len(mem)
            mem.extend(a.tobytes())
        else:
            params[name] = int(a) & 0xFFFFFFFF
    count = interp.run(case.grid, case.block, params, mem)
    stats = ptxld.RawModule(path=KERNELS_DIR / case.ptx[0]).get_function(case.entry)(
        case.grid, case.block, case.make_args())
    assert count == stats.thread_instructions
    for index, want, mode in zip(case.outputs, expected, case.compare):
        a = args[index]
        got = np.frombuffer(bytes(mem[where[index]:where[index] + a.nbytes]), a.dtype)
        assert_matches(mode, got, want)
