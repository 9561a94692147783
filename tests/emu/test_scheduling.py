"""Fair scheduling (docs/scheduling.md): threads spinning on a flag or lock that another thread
of the same warp or of another CTA will set make progress, and a spin nobody can end is
reported as a livelock naming the loop."""
from __future__ import annotations

import numpy as np
import pytest

import ptxld

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def test_lanes_of_one_warp_take_a_lock_in_turn():
    """Independent thread scheduling (sm_70+): every lane of the warp spins on one lock; the
    winner's critical section must run while the others spin."""
    text = HEAD + """
.visible .entry k(.param .u64 lock, .param .u64 count) {
.reg .pred %p; .reg .b32 %r<4>; .reg .b64 %rd<3>;
ld.param.u64 %rd1, [lock]; ld.param.u64 %rd2, [count];
SPIN:
atom.global.cas.b32 %r1, [%rd1], 0, 1;
setp.ne.u32 %p, %r1, 0;
@%p bra SPIN;
ld.volatile.global.u32 %r2, [%rd2];
add.u32 %r2, %r2, 1;
st.volatile.global.u32 [%rd2], %r2;
atom.global.exch.b32 %r3, [%rd1], 0;
ret;
}"""
    lock, count = np.zeros(1, np.int32), np.zeros(1, np.int32)
    ptxld.RawModule(code=text).get_function("k")((2,), (32,), [lock, count])
    assert count[0] == 64 and lock[0] == 0


def test_a_spin_nobody_ends_is_reported_with_its_loop():
    text = HEAD + """
.visible .entry k(.param .u64 flag) {
.reg .pred %p; .reg .b32 %r<3>; .reg .b64 %rd<2>;
ld.param.u64 %rd1, [flag];
mov.u32 %r2, %tid.x;
setp.eq.u32 %p, %r2, 0;
@%p bra DONE;
WAIT:
ld.volatile.global.u32 %r1, [%rd1];
setp.eq.u32 %p, %r1, 0;
@%p bra WAIT;
DONE:
ret;
}"""
    with pytest.raises(ptxld.emu.StepBudgetError) as e:
        ptxld.RawModule(code=text).get_function("k")((1,), (32,), [np.zeros(1, np.int32)], max_steps=2000)
    msg = str(e.value)
    assert "livelock" in msg and "line 12" in msg and "line 14" in msg
