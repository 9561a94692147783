"""Operand forms and control flow of PTX that ptxas accepts: negated predicates `!p`, `WARP_SZ`,
`reg + imm` sources, whole vector registers and element selectors, `.reg` function parameters
and return values, `brx.idx` jump tables, and initializers holding addresses. Each module is
also assembled by ptxas (skipped without it); expectations come from the ISA's definitions."""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

import ptxld

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"
PROLOGUE = """ld.param.u64 %rd1, [p]; mov.u32 %r1, %tid.x; mul.wide.u32 %rd2, %r1, 4;
add.s64 %rd1, %rd1, %rd2;"""
DECLS = ".reg .pred %q<4>; .reg .b64 %rd<8>; .reg .b32 %r<8>;"


def module(body: str, before: str = "", decls: str = "") -> str:
    return (HEAD + before + f"\n.visible .entry k(.param .u64 p) {{\n{DECLS}\n{decls}\n{PROLOGUE}\n"
            f"{body}\nret;\n}}\n")


def run(text: str, n: int = 32, words: int = 4) -> np.ndarray:
    out = np.zeros(n * words, np.uint32)
    ptxld.RawModule(code=text).get_function("k")((1,), (n,), [out])
    return out.reshape(words, n)


def ptxas_accepts(text: str, tmp_path) -> None:
    if shutil.which("ptxas") is None:
        return
    path = tmp_path / "m.ptx"
    path.write_text(text)
    r = subprocess.run(["ptxas", "-arch=sm_80", str(path), "-o", str(tmp_path / "m.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_negated_predicates_and_warp_size(tmp_path):
    text = module("""setp.lt.u32 %q1, %r1, 4;
setp.lt.and.u32 %q2, %r1, 8, !%q1;            // 4 <= tid < 8
selp.u32 %r2, 1, 0, %q2;
st.global.u32 [%rd1], %r2;
vote.sync.ballot.b32 %r3, !%q1, 0xffffffff;   // every lane but 0..3
st.global.u32 [%rd1+128], %r3;
bar.red.popc.u32 %r4, 0, !%q1;                // threads of the CTA with tid >= 4
add.u32 %r4, %r4, WARP_SZ;
st.global.u32 [%rd1+256], %r4;
selp.u32 %r5, 7, 9, !%q1;
st.global.u32 [%rd1+384], %r5;""")
    ptxas_accepts(text, tmp_path)
    out = run(text)
    tid = np.arange(32)
    assert (out[0] == ((tid >= 4) & (tid < 8))).all()
    assert (out[1] == 0xFFFFFFF0).all()
    assert (out[2] == 28 + 32).all()
    assert (out[3] == np.where(tid >= 4, 7, 9)).all()


def test_register_plus_immediate_source(tmp_path):
    text = module("""cvt.u64.u32 %rd3, %r1;
st.global.u32 [%rd1], %r1+5;
st.global.u32 [%rd1+128], %r1 + 0xFFFFFFFF;""")
    ptxas_accepts(text, tmp_path)
    out = run(text, words=2)
    tid = np.arange(32, dtype=np.uint32)
    assert (out[0] == tid + 5).all() and (out[1] == tid - np.uint32(1)).all()    # wraps at 32 bits


def test_whole_vector_registers_and_selectors(tmp_path):
    text = module("""mov.v2.u32 v, {%r1, 7};
mov.v2.u32 w, v;                    // vector to vector
mov.b64 %rd3, w;                    // a .v2 .u32 register as one 64-bit value
mov.b64 {%r2, %r3}, %rd3;
st.global.u32 [%rd1], %r2;
st.global.u32 [%rd1+128], %r3;
mov.v4.u16 q, {1, 2, 3, 4};
mov.u16 %h, q.a;                    // .a is .w
cvt.u32.u16 %r4, %h;
mov.u32 %r5, w.g;                   // .g is .y
add.u32 %r4, %r4, %r5;
st.global.u32 [%rd1+256], %r4;
mov.b64 %rd4, q;
cvt.u32.u64 %r6, %rd4;
st.global.u32 [%rd1+384], %r6;""", decls=".reg .v2 .u32 v, w; .reg .v4 .u16 q; .reg .b16 %h;")
    ptxas_accepts(text, tmp_path)
    out = run(text)
    assert (out[0] == np.arange(32)).all() and (out[1] == 7).all()
    assert (out[2] == 4 + 7).all() and (out[3] == 0x00020001).all()


def test_reg_parameters_and_return_values(tmp_path):
    """`.reg` formals receive the arguments and `.reg` return values come back, scalar and
    vector, through a recursive function (each activation keeps its own registers)."""
    before = """
.func (.reg .u32 r) sum_to(.reg .u32 n)
{
    .reg .pred %p; .reg .u32 %t;
    setp.eq.u32 %p, n, 0;
    @%p bra BASE;
    sub.u32 %t, n, 1;
    call (%t), sum_to, (%t);
    add.u32 r, %t, n;
    ret;
BASE:
    mov.u32 r, 0;
    ret;
}
.func (.reg .v2 .u32 out) swap(.reg .v2 .u32 in)
{
    mov.u32 out.x, in.y;
    mov.u32 out.y, in.x;
    ret;
}
"""
    text = module("""and.b32 %r2, %r1, 15;
call (%r3), sum_to, (%r2);
st.global.u32 [%rd1], %r3;
mov.v2.u32 v, {%r1, 100};
call (w), swap, (v);
st.global.u32 [%rd1+128], w.x;
st.global.u32 [%rd1+256], w.y;""", before, decls=".reg .v2 .u32 v, w;")
    ptxas_accepts(text, tmp_path)
    out = run(text, words=3)
    n = np.arange(32) & 15
    assert (out[0] == n * (n + 1) // 2).all()
    assert (out[1] == 100).all() and (out[2] == np.arange(32)).all()


def test_brx_idx_jump_table(tmp_path):
    text = module("""rem.u32 %r2, %r1, 5;
ts: .branchtargets L0, L1, L2, L3, L4;
brx.idx %r2, ts;
L0: mov.u32 %r3, 100; bra.uni E;
L1: mul.lo.u32 %r3, %r1, 3; bra.uni E;
L2: mov.u32 %r3, 7; bra.uni E;
L3: add.u32 %r3, %r1, 1; bra.uni E;
L4: mov.u32 %r3, 0;
E: st.global.u32 [%rd1], %r3;""")
    ptxas_accepts(text, tmp_path)
    out = run(text, words=1)
    tid = np.arange(32)
    want = np.select([tid % 5 == 0, tid % 5 == 1, tid % 5 == 2, tid % 5 == 3], [100, tid * 3, 7, tid + 1], 0)
    assert (out[0] == want).all()


def test_brx_idx_out_of_range_is_reported():
    text = module("""ts: .branchtargets L0, L1;
brx.idx %r1, ts;
L0: ret;
L1: ret;""")
    with pytest.raises(ptxld.emu.EmulationError) as e:
        run(text)
    assert "past the end" in str(e.value) and "brx.idx" in str(e.value)


def test_initializer_holds_the_state_space_address_unless_generic(tmp_path):
    """PTX ISA 5.4.4: `.global .u64 p = c;` stores c's address in .const space, `generic(c)`
    its generic address; cvta.const turns the first into the second."""
    before = """
.const .u32 c[4] = {5, 6, 7, 8};
.global .u64 pc = c;
.global .u64 pg = generic(c);
"""
    text = module("""ld.global.u64 %rd3, [pc];
ld.global.u64 %rd4, [pg];
mov.u64 %rd5, c;
setp.eq.u64 %q1, %rd3, %rd5;
selp.u32 %r2, 1, 0, %q1;
st.global.u32 [%rd1], %r2;
cvta.const.u64 %rd5, %rd5;
setp.eq.u64 %q2, %rd4, %rd5;
selp.u32 %r3, 1, 0, %q2;
st.global.u32 [%rd1+128], %r3;
ld.u32 %r4, [%rd4+8];
st.global.u32 [%rd1+256], %r4;""", before)
    ptxas_accepts(text, tmp_path)
    out = run(text, words=3)
    assert (out[0] == 1).all() and (out[1] == 1).all() and (out[2] == 7).all()
