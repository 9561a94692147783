"""Every EmulationError subclass, raised by a kernel that commits the fault, with the message
naming the source line, the instruction, the thread and CTA, the space and the address."""
from __future__ import annotations

import re

import numpy as np
import pytest

import ptxld
from ptxld import emu

HEAD = """.version 8.3
.target sm_90
.address_size 64
"""


def kernel(body: str, params: str = ".param .u64 p", decls: str = "", extra: str = ""):
    src = HEAD + extra + f"""
.visible .entry k({params})
{{
.reg .pred %p<4>;
.reg .b32 %r<16>;
.reg .b64 %rd<16>;
{decls}
{body}
ret;
}}
"""
    return ptxld.RawModule(code=src).get_function("k"), src


def line_of(src: str, needle: str) -> int:
    return next(i for i, l in enumerate(src.splitlines(), 1) if needle in l)


def test_out_of_bounds_global_names_everything():
    k, src = kernel("""ld.param.u64 %rd1, [p];
mov.u32 %r1, %tid.x;
mul.wide.u32 %rd2, %r1, 4;
add.s64 %rd3, %rd1, %rd2;
ld.global.u32 %r2, [%rd3];""")
    with pytest.raises(emu.OutOfBoundsError) as e:
        k(2, 64, [np.zeros(40, np.int32)])
    msg = str(e.value)
    assert f"<string>:{line_of(src, 'ld.global.u32')}:" in msg
    assert "`ld.global.u32 %r2, [%rd3];`" in msg
    assert "thread (40,0,0) in CTA (0,0,0)" in msg          # first thread past 40 elements
    assert "and 47 other threads" in msg                      # tid.x >= 40 in both CTAs, less one
    assert re.search(r"address 0x[0-9a-f]+ in \.global space", msg)
    assert "argument 0" in msg and "160 bytes" in msg
    assert e.value.thread == (40, 0, 0) and e.value.cta == (0, 0, 0) and e.value.space == ".global"
    assert isinstance(e.value, emu.MemoryFault) and isinstance(e.value, ptxld.EmulationError)


def test_misaligned():
    k, src = kernel("ld.param.u64 %rd1, [p];\nld.global.u32 %r2, [%rd1+2];")
    with pytest.raises(emu.MisalignedAddressError) as e:
        k(1, 1, [np.zeros(4, np.int32)])
    assert "multiple of the access size (4 bytes)" in str(e.value)
    assert e.value.address % 4 == 2


def test_shared_out_of_bounds():
    k, src = kernel("mov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 2;\nst.shared.u32 [%r2], %r1;",
                    decls=".shared .align 4 .b8 s[64];")
    with pytest.raises(emu.OutOfBoundsError) as e:
        k(1, 32, [np.zeros(1, np.int32)])
    assert e.value.thread == (16, 0, 0) and ".shared" in str(e.value)


def test_generic_address_outside_window_for_cvta_to_shared():
    k, src = kernel("ld.param.u64 %rd1, [p];\ncvta.to.shared.u64 %rd2, %rd1;")
    with pytest.raises(emu.GenericAddressError) as e:
        k(1, 1, [np.zeros(4, np.int32)])
    assert "cvta.to.shared" in str(e.value) and "isspacep" in str(e.value)


def test_generic_ld_nc_needs_global_window():
    k, src = kernel("mov.u64 %rd1, s;\ncvta.shared.u64 %rd2, %rd1;\nld.global.nc.u32 %r1, [%rd2];",
                    decls=".shared .align 4 .b8 s[64];")
    with pytest.raises(emu.OutOfBoundsError):
        k(1, 1, [np.zeros(4, np.int32)])
    k, src = kernel("mov.u64 %rd1, s;\ncvta.shared.u64 %rd2, %rd1;\nld.L2::128B.u32 %r1, [%rd2];",
                    decls=".shared .align 4 .b8 s[64];")
    with pytest.raises(emu.GenericAddressError) as e:
        k(1, 1, [np.zeros(4, np.int32)])
    assert ".shared window" in str(e.value)


@pytest.mark.parametrize("load, space, faults", [
    # PTX ISA 9.7.9.8: where a generic address of each qualifier may point
    ("ld.relaxed.gpu.u32", "const", True),     # .relaxed/.acquire: .global or .shared
    ("ld.relaxed.gpu.u32", "shared", False),
    ("ld.acquire.cta.u32", "local", True),
    ("ld.volatile.u32", "local", False),       # .volatile: .global, .shared or .local
    ("ld.volatile.u32", "const", True),
    ("ld.mmio.relaxed.sys.u32", "shared", True),  # .mmio: .global only
    ("ld.L1::evict_last.u32", "shared", False),   # ptxas's rule on the written space only
    ("ld.u32", "const", False),
])
def test_generic_address_window_follows_the_qualifiers(load, space, faults):
    decl = {"const": ".const .align 4 .b8 v[64];", "shared": ".shared .align 4 .b8 v[64];",
            "local": ".local .align 4 .b8 v[64];"}[space]
    k, src = kernel(f"mov.u64 %rd1, v;\ncvta.{space}.u64 %rd2, %rd1;\n{load} %r1, [%rd2];",
                    decls=decl if space == "local" else "", extra="" if space == "local" else decl + "\n")
    if faults:
        with pytest.raises(emu.GenericAddressError) as e:
            k(1, 1, [np.zeros(4, np.int32)])
        assert f".{space} window" in str(e.value)
    else:
        k(1, 1, [np.zeros(4, np.int32)])


def test_store_to_kernel_parameters_is_read_only():
    k, src = kernel("mov.u64 %rd1, p;\ncvta.param.u64 %rd2, %rd1;\nst.u32 [%rd2], 1;")
    with pytest.raises(emu.ReadOnlyMemoryError):
        k(1, 1, [np.zeros(4, np.int32)])


def test_uninitialised_param_read():
    extra = """.func (.param .b32 r) f(.param .b32 a)
{
.reg .b32 %x;
ld.param.b32 %x, [a];
st.param.b32 [r], %x;
ret;
}
"""
    k, src = kernel("""{
.param .b32 arg;
.param .b32 ret;
call (ret), f, (arg);
ld.param.b32 %r1, [ret];
}""", extra=extra)
    with pytest.raises(emu.UninitializedParamError) as e:
        k(1, 4, [np.zeros(1, np.int32)])
    assert "ld.param.b32 %x, [a];" in str(e.value) and ".param" in str(e.value)


def test_barrier_divergence():
    k, src = kernel("""mov.u32 %r1, %tid.x;
setp.lt.u32 %p1, %r1, 32;
@%p1 bra L1;
bar.sync 0;
bra L2;
L1:
bar.sync 0;
L2:""")
    with pytest.raises(emu.BarrierError) as e:
        k(1, 64, [np.zeros(1, np.int32)])
    assert "divergence" in str(e.value)


def test_barrier_deadlock():
    k, src = kernel("bar.sync 0, 64;")
    with pytest.raises(emu.BarrierError) as e:
        k(1, 32, [np.zeros(1, np.int32)])
    assert "32 of 64 threads" in str(e.value)


def test_exited_early_threads_do_not_block_a_barrier():
    k, src = kernel("""ld.param.u64 %rd1, [p];
mov.u32 %r1, %tid.x;
setp.ge.u32 %p1, %r1, 16;
@%p1 bra DONE;
bar.sync 0;
st.global.u32 [%rd1], 7;
DONE:""")
    out = np.zeros(1, np.int32)
    k(1, 64, [out])
    assert out[0] == 7


def test_exited_lanes_of_the_member_mask_take_no_part():
    """PTX ISA (shfl.sync, vote.sync): exited threads of the member mask do not participate, so
    the instruction completes for the others (it used to wait for them)."""
    k, src = kernel("""mov.u32 %r1, %tid.x;
setp.ge.u32 %p1, %r1, 16;
@%p1 exit;
shfl.sync.idx.b32 %r2, %r1, 3, 31, -1;
vote.sync.ballot.b32 %r3, 1, -1;
add.u32 %r2, %r2, %r3;
ld.param.u64 %rd1, [p];
mul.wide.u32 %rd2, %r1, 4;
add.s64 %rd1, %rd1, %rd2;
st.global.u32 [%rd1], %r2;""")
    out = np.zeros(32, np.uint32)
    k(1, 32, [out])
    assert (out[:16] == 3 + 0xFFFF).all() and (out[16:] == 0).all()


def test_warp_sync_at_two_different_instructions_is_a_deadlock():
    k, src = kernel("""mov.u32 %r1, %tid.x;
setp.ge.u32 %p1, %r1, 16;
@%p1 bra OTHER;
vote.sync.ballot.b32 %r2, 1, -1;
bra.uni DONE;
OTHER:
vote.sync.ballot.b32 %r3, 1, -1;
DONE:""")
    with pytest.raises(emu.WarpSyncError) as e:
        k(1, 32, [np.zeros(1, np.int32)])
    assert "can never complete" in str(e.value)


def test_wmma_non_uniform_address():
    k, src = kernel("""ld.param.u64 %rd1, [p];
mov.u32 %r1, %tid.x;
and.b32 %r2, %r1, 1;
mul.wide.u32 %rd2, %r2, 512;
add.s64 %rd3, %rd1, %rd2;
wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r3,%r4,%r5,%r6,%r7,%r8,%r9,%r10}, [%rd3], 16;""")
    with pytest.raises(emu.WmmaFault) as e:
        k(1, 32, [np.zeros(1024, np.float16)])
    assert "same p" in str(e.value)


def test_unsupported_instruction_reports_line():
    k, src = kernel("istypep.texref %p1, %rd1;")     # textures stay outside the emulator
    with pytest.raises(emu.UnsupportedInstructionError) as e:
        k(1, 1, [np.zeros(1, np.int32)])
    assert "istypep" in str(e.value) and f":{line_of(src, 'istypep')}:" in str(e.value)


def test_step_budget_stops_an_endless_loop():
    k, src = kernel("LOOP:\nbra LOOP;")
    with pytest.raises(emu.StepBudgetError) as e:
        k(1, 1, [np.zeros(1, np.int32)], max_steps=1000)
    assert "1000 instruction steps" in str(e.value)


def test_memory_budget():
    mod = ptxld.RawModule(code=HEAD + ".visible .entry k(.param .u64 p) { ret; }", memory_budget=4096)
    with pytest.raises(emu.MemoryBudgetError):
        mod.get_function("k")(1, 1, [np.zeros(10000, np.uint8)])


def test_launch_errors():
    k, _ = kernel("ret;")
    with pytest.raises(emu.LaunchError, match="takes 1 argument"):
        k(1, 1, [])
    with pytest.raises(emu.LaunchError, match="1024"):
        k(1, (32, 33), [np.zeros(1)])
    with pytest.raises(emu.LaunchError, match="no kernel named"):
        ptxld.RawModule(code=HEAD + ".visible .entry k() { ret; }").get_function("nope")


def test_syntax_errors_are_listed_with_line_and_column():
    with pytest.raises(emu.ModuleError) as e:
        ptxld.RawModule(code=HEAD + ".visible .entry k() {\n ld.global.u32 %r1, [;\n ret;\n}")
    assert re.search(r"<string>:5:\d+: error\[PTX\d+\]", str(e.value))
    assert e.value.diagnostics


def test_every_error_class_is_exported_under_emulation_error():
    for name in emu.__all__:
        obj = getattr(emu, name)
        if isinstance(obj, type) and name.endswith("Error") or name == "WmmaFault":
            assert issubclass(obj, ptxld.EmulationError)


def test_a_load_with_two_types_is_not_run_as_either():
    # `ld.global.u8.u32`: the checker reports two types (PTX0202), explain refuses to describe
    # it, and the emulator, reading the same load model, refuses to guess which one was meant
    # it, RawModule refuses the module with that diagnostic, and the emulator (checking off),
    # reading the same load model, refuses to guess which type was meant
    body = "ld.param.u64 %rd1, [p];\nld.global.u8.u32 %r1, [%rd1];\nst.global.u32 [%rd1], %r1;"
    with pytest.raises(emu.ModuleError) as e:
        kernel(body)
    assert [d.code for d in e.value.diagnostics] == ["PTX0202"]
    src = HEAD + ".visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<16>;\n.reg .b64 %rd<16>;\n" + body + "\nret;\n}\n"
    assert any(d.code == "PTX0202" for d in ptxld.check(src))
    k = ptxld.RawModule(code=src, check=False).get_function("k")
    with pytest.raises(emu.EmulationError, match=r"not a valid load \(\.u32"):
        k(1, 1, [np.zeros(4, np.int32)])
