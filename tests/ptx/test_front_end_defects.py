"""Four front-end defects found on real compiler output (ptxas accepts every module here):
labels followed by several `.loc` lines, array elements as operands, a `{` block after a label and
a `.loc`, and a vector register used whole. Each is parsed, checked and (where it computes
something) run; ptxas is the oracle for what is valid PTX."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import ptxld

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "check"))
from ptxas_util import PTXAS, assemble  # noqa: E402

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def _kernel(body: str, params: str = ".param .u64 p") -> str:
    return HEAD + f".visible .entry k({params})\n{{\n{body}\n}}\n"


def _errors(text: str) -> list:
    return [d for d in ptxld.check(text) if d.severity == "error"]


def _valid_for_ptxas(text: str) -> None:
    if PTXAS is not None:
        code, out = assemble(text)
        assert code == 0, out


LABEL_LOCS = _kernel("""\
.reg .b32 %r<4>;
$L__tmp1:
.loc 2 314 12
.loc 2 287 12
add.s32 %r1, %r2, %r3;
$L__tmp2:
.loc 2 300 1
.loc 2 301 1
.loc 2 302 1
bar.sync 0;
ret;""")


def test_label_then_several_loc_lines_keeps_the_next_instruction():
    m = ptxld.parse(LABEL_LOCS)
    assert not m.diagnostics
    assert [i.opcode for i in m.instructions] == ["add.s32", "bar.sync", "ret"]
    locs = [it for it in m.functions["k"].body.items if getattr(it, "name", "") == ".loc"]
    assert len(locs) == 5
    assert not _errors(LABEL_LOCS)
    _valid_for_ptxas(LABEL_LOCS)


def test_label_then_several_loc_lines_formats_without_loss():
    out = ptxld.format(LABEL_LOCS)
    again = ptxld.parse(out)
    assert [i.opcode for i in again.instructions] == ["add.s32", "bar.sync", "ret"]
    assert out.count(".loc") == 5


BLOCK_AFTER_LOC = _kernel("""\
.reg .b64 %rd<2>;
ld.param.u64 %rd1, [p];
L1:
.loc 1 5 1
{
.reg .b32 t;
ld.global.u32 t, [%rd1];
st.global.u32 [%rd1+4], t;
}
ret;""")


def test_label_loc_then_block_opens_a_scope():
    m = ptxld.parse(BLOCK_AFTER_LOC)
    assert not m.diagnostics
    assert not _errors(BLOCK_AFTER_LOC)
    _valid_for_ptxas(BLOCK_AFTER_LOC)
    a = np.array([7, 0], np.uint32)
    ptxld.RawModule(code=BLOCK_AFTER_LOC).get_function("k")(1, 1, [a])
    assert a.tolist() == [7, 7]


# ptxas scales an element index by the array's scalar type size (measured on ptxas 13.0's SASS:
# `.u32 buf[64]`: buf[5] is buf+20; `.b16 h[4][8]`: h[7] is h+14; a `.v4 .u32` array steps by 4)
ARRAYS = _kernel("""\
.shared .align 4 .u32 buf[64];
.shared .align 4 .b16 h[4][8];
.reg .b64 %rd<9>;
.reg .b32 %r<2>;
mov.u64 %rd1, buf;
mov.u64 %rd2, buf[5];
mov.u64 %rd3, h;
mov.u64 %rd4, h[7];
cvta.shared.u64 %rd5, buf;
cvta.shared.u64 %rd6, buf[2];
mov.u32 %r1, 3;
mov.u64 %rd7, buf[%r1];
ld.param.u64 %rd8, [p];
st.global.u64 [%rd8], %rd1;
st.global.u64 [%rd8+8], %rd2;
st.global.u64 [%rd8+16], %rd3;
st.global.u64 [%rd8+24], %rd4;
st.global.u64 [%rd8+32], %rd5;
st.global.u64 [%rd8+40], %rd6;
st.global.u64 [%rd8+48], %rd7;
ret;""")


def test_array_elements_as_operands_parse_check_and_run():
    assert not ptxld.parse(ARRAYS).diagnostics
    assert not _errors(ARRAYS)
    _valid_for_ptxas(ARRAYS)
    out = np.zeros(7, np.uint64)
    ptxld.RawModule(code=ARRAYS).get_function("k")(1, 1, [out])
    buf, buf5, h, h7, gbuf, gbuf2, buf_r = (int(x) for x in out)
    assert buf5 - buf == 5 * 4
    assert h7 - h == 7 * 2
    assert gbuf2 - gbuf == 2 * 4
    assert buf_r - buf == 3 * 4


@pytest.mark.parametrize("line", [
    "ld.shared.u32 %r1, [buf[1]];",        # ptxas: syntax error near '['
    "mov.u32 %r1, buf[1]+4;",              # ptxas: syntax error near '+'
])
def test_array_element_forms_ptxas_rejects_are_errors(line):
    text = _kernel(f".shared .align 4 .u32 buf[64];\n.reg .b32 %r<2>;\n{line}\nret;")
    assert _errors(text)
    if PTXAS is not None:
        assert assemble(text)[0] != 0


WHOLE_VECTOR = _kernel("""\
.reg .b64 %rd<2>;
.reg .v4 .u32 v;
.reg .v2 .u32 w;
ld.param.u64 %rd1, [p];
ld.global.v4.u32 v, [%rd1];
ld.global.v2.u32 w, [%rd1+16];
st.global.v4.u32 [%rd1+32], v;
st.global.v2.u32 [%rd1+48], w;
ret;""")


def test_vector_register_used_whole_as_ld_destination():
    assert not _errors(WHOLE_VECTOR)
    _valid_for_ptxas(WHOLE_VECTOR)
    a = np.arange(14, dtype=np.uint32) + 1
    ptxld.RawModule(code=WHOLE_VECTOR).get_function("k")(1, 1, [a])
    assert a[8:12].tolist() == [1, 2, 3, 4]
    assert a[12:14].tolist() == [5, 6]


def test_vector_register_of_the_wrong_length_is_an_error():
    text = WHOLE_VECTOR.replace(".reg .v4 .u32 v;", ".reg .v2 .u32 v;")
    assert any(d.code == "PTX0305" for d in _errors(text))
    if PTXAS is not None:
        assert assemble(text)[0] != 0
