"""alloca / stacksave / stackrestore (PTX ISA 9.7.17): memory on a per-thread stack in .local
space, released by stackrestore and when the allocating function returns."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

import ptxld

TEXT = """.version 8.0
.target sm_80
.address_size 64
.func (.reg .u64 sp) inner(.reg .u64 n)
{
    .reg .u64 %p;
    alloca.u64 %p, 64;
    st.local.u64 [%p], n;
    stacksave.u64 sp;
    ret;
}
.visible .entry k(.param .u64 o)
{
    .reg .u64 %rd<10>; .reg .b32 %r<3>;
    ld.param.u64 %rd1, [o]; mov.u32 %r1, %tid.x; mul.wide.u32 %rd2, %r1, 32; add.s64 %rd1, %rd1, %rd2;
    cvt.u64.u32 %rd4, %r1;
    stacksave.u64 %rd5;
    alloca.u64 %rd3, 40, 32;
    st.local.u64 [%rd3+8], %rd4;
    call (%rd6), inner, (%rd4);
    stacksave.u64 %rd7;
    ld.local.u64 %rd8, [%rd3+8];
    stackrestore.u64 %rd5;
    stacksave.u64 %rd9;
    sub.u64 %rd6, %rd7, %rd6;        // what inner allocated: 64 bytes
    sub.u64 %rd7, %rd5, %rd7;        // ours: 40 bytes rounded down to a 32-byte boundary
    and.b64 %rd3, %rd3, 31;          // our block's alignment
    sub.u64 %rd9, %rd9, %rd5;        // restored: 0
    st.global.v2.u64 [%rd1], {%rd8, %rd6};
    st.global.v2.u64 [%rd1+16], {%rd7, %rd3};
    ret;
}
"""


def test_alloca_stacksave_stackrestore(tmp_path):
    if shutil.which("ptxas"):
        (tmp_path / "s.ptx").write_text(TEXT)
        r = subprocess.run(["ptxas", "-arch=sm_80", str(tmp_path / "s.ptx"), "-o", str(tmp_path / "s.o")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    out = np.zeros((8, 4), np.uint64)
    ptxld.RawModule(code=TEXT).get_function("k")((1,), (8,), [out])
    assert (out[:, 0] == np.arange(8)).all()          # each thread's own block
    assert (out[:, 1] == 64).all()                    # inner's alloca, released on return
    assert (out[:, 2] >= 40).all() and (out[:, 2] < 72).all() and (out[:, 3] == 0).all()


def test_stack_overflow_is_reported():
    text = TEXT.replace("alloca.u64 %rd3, 40, 32;", "alloca.u64 %rd3, 1000000;")
    with pytest.raises(ptxld.emu.OutOfBoundsError) as e:
        ptxld.RawModule(code=text).get_function("k")((1,), (2,), [np.zeros((2, 4), np.uint64)])
    assert "stack overflow" in str(e.value)
