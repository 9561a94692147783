"""Run a few lines of PTX per thread: the test helper of test_arith_semantics.py.

`run(body, inputs, outputs, threads)`: the kernel reads `%in<k>` (64-bit slots, k = 0..7) from
its thread's row of an input array, runs `body`, and stores `%out<k>` (64-bit) into its row of
the output array. Declarations of further registers go in `decls`.
"""
from __future__ import annotations

import numpy as np

import ptxld

HEAD = """.version 8.0
.target {target}
.address_size 64
{globals}
.visible .entry k(.param .u64 pin, .param .u64 pout) {{
.reg .b64 %in<8>, %out<8>, %pa, %pb, %off;
.reg .b32 %tx;
{decls}
mov.u32 %tx, %tid.x;
mul.wide.u32 %off, %tx, 64;
ld.param.u64 %pa, [pin];
ld.param.u64 %pb, [pout];
add.s64 %pa, %pa, %off;
add.s64 %pb, %pb, %off;
ld.global.v2.u64 {{%in0, %in1}}, [%pa];
ld.global.v2.u64 {{%in2, %in3}}, [%pa+16];
ld.global.v2.u64 {{%in4, %in5}}, [%pa+32];
ld.global.v2.u64 {{%in6, %in7}}, [%pa+48];
mov.b64 %out0, 0; mov.b64 %out1, 0; mov.b64 %out2, 0; mov.b64 %out3, 0;
mov.b64 %out4, 0; mov.b64 %out5, 0; mov.b64 %out6, 0; mov.b64 %out7, 0;
{body}
st.global.v2.u64 [%pb], {{%out0, %out1}};
st.global.v2.u64 [%pb+16], {{%out2, %out3}};
st.global.v2.u64 [%pb+32], {{%out4, %out5}};
st.global.v2.u64 [%pb+48], {{%out6, %out7}};
ret;
}}
"""


def text(body: str, decls: str = "", target: str = "sm_80", globals_: str = "") -> str:
    return HEAD.format(body=body, decls=decls, target=target, globals=globals_)


def run(body: str, inputs: np.ndarray, decls: str = "", target: str = "sm_80", globals_: str = "",
        block: int | None = None) -> np.ndarray:
    inputs = np.asarray(inputs, np.uint64)
    n = inputs.shape[0]
    rows = np.zeros((n, 8), np.uint64)
    rows[:, :inputs.shape[1]] = inputs
    out = np.zeros((n, 8), np.uint64)
    kernel = ptxld.RawModule(code=text(body, decls, target, globals_)).get_function("k")
    kernel((1,), (block or n,), [rows, out])
    return out
