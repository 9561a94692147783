"""Every module ptxas accepts among the generated cases of the arithmetic, carry, bit-field,
video and stack records loads in the emulator and runs one thread to completion or to an
EmulationError (a fault, an unsupported instruction), never another exception."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from ptxas_oracle import compare, generate, verdicts  # noqa: E402

import ptxld  # noqa: E402

FAMILIES = ("isa.vadd", "isa.vsub", "isa.vabsdiff", "isa.vmin", "isa.vmax", "isa.vshl", "isa.vshr",
            "isa.vmad", "isa.vset", "isa.vavrg", "isa.bmsk", "isa.szext", "isa.fns", "isa.addc",
            "isa.subc", "isa.madc", "isa.alloca", "isa.stacksave", "isa.stackrestore", "isa.add.",
            "isa.sub.")


@pytest.fixture(scope="module")
def accepted():
    cache = verdicts.load()
    version = compare.cached_version(cache)
    return [c for c in generate.all_cases() if c.family.startswith(FAMILIES)
            and cache.get(c.key(version), {}).get("verdict") == "accept"]


def test_accepted_modules_run_or_fault_cleanly(accepted):
    assert len(accepted) > 1000
    escaped, ran = [], []
    for case in accepted:
        try:
            module = ptxld.RawModule(code=case.text)
            kernel = module.get_function("k")
            kernel((1,), (1,), [np.zeros(64, np.uint8), bytes(64)], max_steps=10_000)
            ran.append(case.id)
        except ptxld.emu.EmulationError:
            pass
        except Exception as e:  # noqa: BLE001 - the point of the test
            escaped.append((case.id, f"{type(e).__name__}: {e}"))
    assert not escaped, escaped[:5]
    assert len(ran) > len(accepted) // 2          # most run to the end: the test reaches execution
