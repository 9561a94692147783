"""The tcgen05 records and multimem's vector operands against ptxas 13.0: concrete lines, each
with the verdict ptxas 13.0.88 gives (measured on the target and PTX ISA version named). The
checker must agree with every one; where ptxas is on PATH, ptxas is asked again, so the table
cannot drift from the tool it records.

Not covered: ptxas also refuses a vector whose elements are registers of different types ("Vector
with elements of different types are not allowed"), which ptxld does not check yet."""
from __future__ import annotations

import pytest

from ptxas_util import PTXAS, assemble
from ptxld.checker import check_source

_DECLS = (".reg .b32 %r<300>;\n.reg .b64 %rd<20>;\n.reg .pred %p<4>;\n.reg .b16 %h<10>;\n"
          ".reg .f32 %f<10>;\n.reg .u32 %u<10>;\n.reg .s32 %s<10>;\n.reg .u16 %uh<10>;\n.reg .f16 %hf<10>;\n"
          ".reg .f16x2 %x<10>;\n.reg .f64 %fd<4>;\n.shared .b32 sa;\n.shared .b64 mb;\n")

_LANES4 = "{%r10, %r11, %r12, %r13}"
_LANES8 = "{%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17}"


def _regs(n: int) -> str:
    return "{" + ", ".join(f"%r{100 + i}" for i in range(n)) + "}"


# (line, target, PTX ISA version, ptxas 13.0 accepts)
CASES = [
    # allocation
    ("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [sa], 32;", "sm_100a", "8.6", True),
    ("tcgen05.alloc.cta_group::2.sync.aligned.b32 [%rd1], %u1;", "sm_100a", "8.6", True),
    ("tcgen05.alloc.sync.aligned.shared::cta.b32 [sa], 32;", "sm_100a", "8.6", False),       # no .cta_group
    ("tcgen05.alloc.cta_group::1.sync.shared::cta.b32 [sa], 32;", "sm_100a", "8.6", False),  # no .aligned
    ("tcgen05.alloc.cta_group::1.sync.aligned.shared::cluster.b32 [sa], 32;", "sm_100a", "8.6", False),
    ("tcgen05.alloc.cta_group::1.sync.aligned.b32 [sa], 1024;", "sm_100a", "8.6", False),  # 32..512 columns
    ("tcgen05.alloc.cta_group::1.sync.aligned.b32 [sa], %f1;", "sm_100a", "8.6", False),
    ("tcgen05.alloc.cta_group::1.sync.aligned.b32 [sa], 32;", "sm_100", "8.6", False),     # not plain sm_100
    ("tcgen05.alloc.cta_group::1.sync.aligned.b32 [sa], 32;", "sm_100a", "8.5", False),
    ("tcgen05.alloc.cta_group::1.sync.aligned.b32 [sa], 32;", "sm_120a", "8.7", False),
    ("tcgen05.alloc.cta_group::1.sync.aligned.b32 [sa], 32;", "sm_110f", "9.0", True),
    ("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 64;", "sm_100a", "8.6", True),
    ("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 16;", "sm_100a", "8.6", False),   # a multiple of 32
    ("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %rd1, 32;", "sm_100a", "8.6", False),
    ("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;", "sm_103a", "8.8", True),
    ("tcgen05.relinquish_alloc_permit.sync.aligned;", "sm_100a", "8.6", False),
    # loads and stores of tensor memory: the vector's length follows the shape and .num
    ("tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r1, %r2}, [%r3];", "sm_100a", "8.6", True),
    ("tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32 {%f1, %f2}, [%r3];", "sm_100a", "8.6", True),
    ("tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32 {%u1}, [%r3];", "sm_100a", "8.6", False),
    ("tcgen05.ld.sync.aligned.16x128b.x1.b32 {%r1, %r2}, [%r3];", "sm_100a", "8.6", True),
    ("tcgen05.ld.sync.aligned.16x128b.x1.b32 {%r1}, [%r3];", "sm_100a", "8.6", False),
    (f"tcgen05.ld.sync.aligned.16x256b.x32.b32 {_regs(128)}, [%r3];", "sm_100a", "8.6", True),
    (f"tcgen05.ld.sync.aligned.16x256b.x64.b32 {_regs(128)}, [%r3];", "sm_100a", "8.6", False),
    ("tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%r1}, [%r3], 16;", "sm_100a", "8.6", True),
    ("tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%r1}, [%r3];", "sm_100a", "8.6", False),    # half-split offset
    ("tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%r1}, [%r3], %r4;", "sm_100a", "8.6", False),
    ("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%rd3];", "sm_100a", "8.6", False),     # 32-bit address
    ("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [sa];", "sm_100a", "8.6", False),
    ("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r1}, [%u3+16];", "sm_100a", "8.6", True),
    ("tcgen05.ld.sync.aligned.32x32b.x1.b32 %r1, [%r3];", "sm_100a", "8.6", False),        # a vector
    ("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%h1}, [%r3];", "sm_100a", "8.6", False),
    ("tcgen05.ld.sync.32x32b.x1.b32 {%f1}, [%r3];", "sm_100a", "8.6", True),               # .aligned optional
    ("tcgen05.ld.sync.aligned.32x32b.x1.unpack::16b.b32 {%r1}, [%r3];", "sm_100a", "8.6", False),
    ("tcgen05.ld.red.sync.aligned.32x32b.x2.min.abs.NaN.f32 {%r1, %r2}, %r5, [%r3];", "sm_103a", "8.8", True),
    ("tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32 {%r1, %r2}, %r5, [%r3];", "sm_100a", "8.8", False),
    ("tcgen05.ld.red.sync.aligned.32x32b.x1.max.u32 {%r1}, %r5, [%r3];", "sm_103a", "8.8", False),
    ("tcgen05.ld.red.sync.aligned.32x32b.x2.max.abs.u32 {%r1, %r2}, %r5, [%r3];", "sm_110a", "9.0", False),
    ("tcgen05.st.sync.aligned.16x32bx2.x2.unpack::16b.b32 [%r3], 8, {%r1, %r2};", "sm_100a", "8.6", True),
    ("tcgen05.st.sync.aligned.32x32b.x1.pack::16b.b32 [%r3], {%r1};", "sm_100a", "8.6", False),
    ("tcgen05.st.sync.aligned.16x128b.x128.b32 [%r3], {%r1};", "sm_100a", "8.6", False),
    ("tcgen05.wait::ld.sync.aligned;", "sm_100a", "8.6", True),
    ("tcgen05.wait::st.sync.aligned;", "sm_100f", "8.8", True),
    ("tcgen05.wait::st.sync;", "sm_100a", "8.6", False),
    ("tcgen05.wait.sync.aligned;", "sm_100a", "8.6", False),
    # copies and shifts
    ("tcgen05.cp.cta_group::1.128x256b [%r1], %rd2;", "sm_100a", "8.6", True),
    ("tcgen05.cp.cta_group::2.32x128b.warpx4.b8x16.b4x16_p64 [%r1], %rd2;", "sm_103f", "8.8", True),
    ("tcgen05.cp.cta_group::1.64x128b [%r1], %rd2;", "sm_100a", "8.6", False),             # needs .warpx2::
    ("tcgen05.cp.cta_group::1.32x128b.warpx2::01_23 [%r1], %rd2;", "sm_100a", "8.6", False),
    ("tcgen05.cp.cta_group::1.128x256b.b6x16_p32 [%r1], %rd2;", "sm_100a", "8.6", False),  # both formats
    ("tcgen05.cp.cta_group::1.128x256b [%r1], %r2;", "sm_100a", "8.6", False),
    ("tcgen05.shift.cta_group::1.down [%r1];", "sm_100a", "8.6", True),
    ("tcgen05.shift.cta_group::1.down [%r1];", "sm_100f", "8.8", False),
    ("tcgen05.shift.cta_group::1 [%r1];", "sm_100a", "8.6", False),
    # mma
    ("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r2, %p1;", "sm_100a", "8.6", True),
    (f"tcgen05.mma.cta_group::1.kind::tf32 [%r1], [%r3], %rd3, %r2, {_LANES4}, %p1, 3;", "sm_100a", "8.6", True),
    (f"tcgen05.mma.cta_group::2.kind::f16 [%r1], %rd2, %rd3, %r2, {_LANES8}, !%p1;", "sm_100a", "8.6", True),
    (f"tcgen05.mma.cta_group::2.kind::f16 [%r1], %rd2, %rd3, %r2, {_LANES4}, %p1;", "sm_100a", "8.6", False),
    ("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r2, %p1, 16;", "sm_100a", "8.6", False),
    ("tcgen05.mma.cta_group::1.kind::f8f6f4 [%r1], %rd2, %rd3, %r2, %p1, 3;", "sm_100a", "8.6", False),
    ("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r2, %p1, 3;", "sm_110a", "9.0", False),
    ("tcgen05.mma.cta_group::1.kind::f16 [%u1], %rd2, %rd3, %r2, %p1;", "sm_100a", "8.6", False),  # .b32 only
    ("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %f2, %p1;", "sm_100a", "8.6", False),
    ("tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r2, %r5;", "sm_100a", "8.6", False),
    ("tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd2, %rd3, %r2, %p1;", "sm_100a", "8.6", True),
    ("tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd2, %rd3, %r2, %p1;", "sm_103a", "8.8", False),
    ("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%r1], %rd2, %rd3, %r2, [%r4], [%r5], %p1;",
     "sm_100a", "8.6", True),
    ("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X [%r1], %rd2, %rd3, %r2, [%r4], [%r5], %p1;",
     "sm_100f", "8.8", False),
    ("tcgen05.mma.cta_group::1.kind::mxf4.block_scale [%r1], %rd2, %rd3, %r2, [%r4], [%r5], %p1;", "sm_100a", "8.6",
     False),                                                                                # .block32: PTX 8.8
    ("tcgen05.mma.cta_group::1.kind::mxf4.block_scale [%r1], %rd2, %rd3, %r2, [%r4], [%r5], %p1;", "sm_100a", "8.8",
     True),
    ("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 [%r1], %rd2, %rd3, %r2, [%r4], [%r5], %p1;",
     "sm_110f", "9.0", True),
    ("tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::1X [%r1], %rd2, %rd3, %r2, [%r4], [%r5], %p1;",
     "sm_100a", "8.6", False),
    ("tcgen05.mma.cta_group::1.kind::f16.block_scale [%r1], %rd2, %rd3, %r2, [%r4], [%r5], %p1;", "sm_100a", "8.6",
     False),
    ("tcgen05.mma.cta_group::1.kind::f16.collector::a::lastuse.ashift [%r1], [%r3], %rd3, %r2, %p1;", "sm_100a",
     "8.6", True),
    ("tcgen05.mma.cta_group::1.kind::f16.collector::a::fill.ashift [%r1], [%r3], %rd3, %r2, %p1;", "sm_100a", "8.6",
     False),
    ("tcgen05.mma.cta_group::1.kind::f16.ashift [%r1], %rd2, %rd3, %r2, %p1;", "sm_100a", "8.6", False),
    ("tcgen05.mma.ws.cta_group::1.kind::f16.collector::b2::use [%r1], %rd2, %rd3, %r2, %p1, %rd4;", "sm_100a",
     "8.6", True),
    ("tcgen05.mma.ws.cta_group::2.kind::f16 [%r1], %rd2, %rd3, %r2, %p1;", "sm_100a", "8.6", False),
    ("tcgen05.mma.ws.cta_group::1.kind::f16.collector::a::fill [%r1], %rd2, %rd3, %r2, %p1;", "sm_100a", "8.6",
     False),
    ("tcgen05.mma.ws.sp.cta_group::1.kind::tf32 [%r1], %rd2, %rd3, [%r6], %r2, %p1;", "sm_100a", "8.6", True),
    ("tcgen05.mma.sp.ws.cta_group::1.kind::tf32 [%r1], %rd2, %rd3, [%r6], %r2, %p1;", "sm_100a", "8.6", False),
    (f"tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd2, %rd3, [%r6], %r2, {_LANES4}, %p1, 3;", "sm_100a", "8.6",
     True),
    ("tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd2, %rd3, %r6, %r2, %p1;", "sm_100a", "8.6", False),
    ("tcgen05.mma.sp.cta_group::1.kind::mxf4.block_scale.block32 [%r1], %rd2, %rd3, [%r6], %r2, [%r4], [%r5], %p1;",
     "sm_103f", "8.8", False),
    ("tcgen05.mma.cta_group::1.kind::f16.sync.aligned [%r1], %rd2, %rd3, %r2, %p1;", "sm_100a", "8.6", False),
    # commit and fences
    ("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mb];", "sm_100a", "8.6", True),
    ("tcgen05.commit.cta_group::2.mbarrier::arrive::one.multicast::cluster.b64 [%rd1], %uh1;", "sm_100a", "8.6",
     True),
    ("tcgen05.commit.cta_group::1.mbarrier::arrive::one.multicast::cluster.b64 [%rd1], %r1;", "sm_100a", "8.6",
     False),
    ("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cta.b64 [%rd1];", "sm_100a", "8.6", False),
    ("tcgen05.commit.cta_group::1.b64 [%rd1];", "sm_100a", "8.6", False),
    ("tcgen05.fence::before_thread_sync;", "sm_100a", "8.6", True),
    ("tcgen05.fence::after_thread_sync;", "sm_90a", "8.6", False),
    ("tcgen05.fence;", "sm_100a", "8.6", False),
    # multimem vector data: any register of the element's size where ptxas takes it
    ("multimem.st.relaxed.sys.global.v2.bf16x2 [%rd1], {%u1, %u2};", "sm_90", "8.6", True),
    ("multimem.ld_reduce.relaxed.sys.global.add.v4.bf16x2 {%f1, %f2, %f3, %f4}, [%rd1];", "sm_90", "8.6", True),
    ("multimem.ld_reduce.relaxed.sys.global.add.v2.bf16x2 {%x1, %x2}, [%rd1];", "sm_90", "8.6", True),
    ("multimem.red.relaxed.sys.global.add.v2.bf16x2 [%rd1], {%u1, %u2};", "sm_90", "8.6", False),
    ("multimem.red.relaxed.sys.global.add.v2.bf16x2 [%rd1], {%r1, %r2};", "sm_90", "8.6", True),
    ("multimem.st.relaxed.sys.global.v2.bf16x2 [%rd1], {%h1, %h2};", "sm_90", "8.6", False),
    ("multimem.st.relaxed.sys.global.v2.f16x2 [%rd1], {%u1, %u2};", "sm_90", "8.6", False),
    ("multimem.ld_reduce.relaxed.sys.global.add.v2.f32 {%u1, %s2}, [%rd1];", "sm_90", "8.6", True),
    ("multimem.ld_reduce.relaxed.sys.global.add.v2.f32 {%x1, %x2}, [%rd1];", "sm_90", "8.6", False),
    ("multimem.st.relaxed.sys.global.v2.bf16 [%rd1], {%uh1, %uh2};", "sm_90", "8.6", True),
    ("multimem.red.relaxed.sys.global.add.v2.bf16 [%rd1], {%hf1, %hf2};", "sm_90", "8.6", False),
    ("multimem.red.relaxed.sys.global.add.v2.f16 [%rd1], {%uh1, %uh2};", "sm_90", "8.6", True),
    ("multimem.st.relaxed.sys.global.f32 [%rd1], %u1;", "sm_90", "8.6", False),             # a scalar: strict
]


def _kernel(line: str, target: str, version: str) -> str:
    return (f".version {version}\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n"
            f"{_DECLS}ld.param.u64 %rd1, [p];\n{line}\nret;\n}}\n")


def _ids():
    return [f"{i:02d}-{line.split()[0]}-{target}" for i, (line, target, _, _) in enumerate(CASES)]


@pytest.mark.parametrize("line,target,version,ok", CASES, ids=_ids())
def test_checker_agrees_with_the_recorded_ptxas_verdict(line, target, version, ok):
    errors = [d for d in check_source(_kernel(line, target, version), filename="case.ptx") if d.severity == "error"]
    assert (not errors) == ok, [f"{d.code} {d.message}" for d in errors]
    # a refused instruction is reported on its own line (line 20 of the kernel), as ptxas does
    assert ok or any(d.line == 20 for d in errors), [(d.line, d.code) for d in errors]


@pytest.mark.ptxas
@pytest.mark.skipif(PTXAS is None, reason="ptxas not on PATH")
def test_the_recorded_verdicts_are_ptxas_13s():
    wrong = []
    for line, target, version, ok in CASES:
        rc, msg = assemble(_kernel(line, target, version))
        if (rc == 0) != ok:
            wrong.append(f"{line} on {target}/{version}: ptxas {'accepts' if rc == 0 else 'refuses'} "
                         f"({msg.strip()[:120]})")
    assert not wrong, "\n".join(wrong)
