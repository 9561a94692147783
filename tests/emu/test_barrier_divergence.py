"""An aligned barrier (`bar.sync`) split by divergent control flow is an error the emulator
reports (the PTX ISA leaves it undefined); lanes that reconverge before the barrier, and the
non-`.aligned` `barrier.sync`, run. Expected values are computed here with NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import ptxld
from ptxld.emu.errors import BarrierError


def _kernel(body: str) -> str:
    # lanes 0-15 of each warp have %q1 set; each thread stores %r3 to p[tid]
    return (".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
            ".reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n.reg .pred %q<4>;\nld.param.u64 %rd1, [p];\n"
            "mov.u32 %r1, %tid.x;\nand.b32 %r2, %r1, 31;\nsetp.lt.u32 %q1, %r2, 16;\n" + body +
            "\nmul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r3;\n"
            "ret;\n}\n")


RECONVERGENT = _kernel("mov.u32 %r3, 1;\n@%q1 bra L1;\nadd.u32 %r3, %r3, 5;\nmul.lo.u32 %r3, %r3, 3;\n"
                       "L1:\nbar.sync 0;")
# lanes 16-31 wait at one barrier instruction, lanes 0-15 of the same warp at another
SPLIT = _kernel("mov.u32 %r3, 1;\n@%q1 bra L2;\nbar.sync 0;\nbra.uni END;\nL2:\n"
                "add.u32 %r3, %r3, 5;\nbar.sync 0;\nEND:")
# lanes 16-31 reach the barrier while lanes 0-15 are still on the other path, then the same one
LATE = _kernel("mov.u32 %r3, 1;\n@%q1 bra L2;\nL1:\nbar.sync 0;\nbra.uni END;\nL2:\n"
               "add.u32 %r3, %r3, 5;\nbra.uni L1;\nEND:")


def _run(src: str) -> np.ndarray:
    out = np.zeros(64, np.uint32)
    ptxld.RawModule(code=src).get_function("k")(1, 64, [out])
    return out


def test_lanes_that_reconverge_before_the_barrier_run():
    low = (np.arange(64) % 32) < 16
    assert np.array_equal(_run(RECONVERGENT), np.where(low, 1, (1 + 5) * 3))


def test_a_split_warp_at_an_aligned_barrier_is_an_error():
    with pytest.raises(BarrierError):
        _run(SPLIT)
    with pytest.raises(BarrierError):
        _run(SPLIT.replace("bar.sync 0;", "barrier.sync.aligned 0;"))


def test_lanes_arriving_late_at_the_same_barrier_run():
    # independent thread scheduling: the warp's lanes meet at the one barrier instruction
    low = (np.arange(64) % 32) < 16
    assert np.array_equal(_run(LATE), np.where(low, 6, 1))


def test_the_non_aligned_barrier_allows_the_split():
    low = (np.arange(64) % 32) < 16
    assert np.array_equal(_run(SPLIT.replace("bar.sync 0;", "barrier.sync 0;")), np.where(low, 6, 1))
