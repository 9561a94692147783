"""The texture and surface records (tex, tld4, txq, istypep, suld, sust, sured, suq) on concrete
lines: each invalid line is an error of ptxld on its line, with the ptxas 13.0 message it
answers; each valid line is clean. The ptxas half checks those messages and verdicts (skipped
without ptxas)."""
from __future__ import annotations

import pytest

from ptxas_util import PTXAS, assemble
from ptxld.checker import check_source

_REGS = (".reg .b32 %r<16>;\n.reg .f32 %f<16>;\n.reg .b64 %rd<4>;\n.reg .pred %p<2>;\n"
         ".reg .b16 %h<8>;\n.reg .f16x2 %y<4>;\n")
_D = "{%f1, %f2, %f3, %f4}"
_R = "{%r1, %r2, %r3, %r4}"


def _module(line: str, independent: bool = False) -> str:
    mode = ", texmode_independent" if independent else ""
    sampler = ".global .samplerref s1;\n" if independent else ""
    return (f".version 8.5\n.target sm_90{mode}\n.address_size 64\n.global .texref t1;\n"
            f".global .surfref u1;\n{sampler}.visible .entry k()\n{{\n{_REGS}{line}\nret;\n}}\n")


# (line, texmode_independent, ptxld's code, a fragment of ptxas's message)
INVALID = [
    (f"tex.2d.v4.f32.f32 {_D}, [t1, {{%f5}}];", False, "PTX0805",
     "Operand vector size doesn't match geometry"),
    (f"tex.3d.v4.f32.s32 {_D}, [t1, {{%r5, %r6, %r7}}];", False, "PTX0805", "Illegal vector size: 3"),
    (f"tex.2d.v4.f32.f32 {_D}, [u1, {{%f5, %f6}}];", False, "PTX0805", ".texref or .u64 register expected"),
    (f"tex.2d.v4.f32.f32 {_D}, [%r1, {{%f5, %f6}}];", False, "PTX0806", "Arguments mismatch"),
    (f"tex.2d.v4.f32.s32 {_D}, [t1, {{%f5, %f6}}];", False, "PTX0806", "Arguments mismatch"),
    (f"tex.a1d.v4.f32.f32 {_D}, [t1, {{%f5, %f6}}];", False, "PTX0806", "Array index"),
    (f"tex.2d.v4.f32.f32 {_D}, [t1, {{%f5, %f6}}];", True, "PTX0805", ".samplerref or .u64 register expected"),
    ("tex.2d.v2.f32.f32 {%f1, %f2}, [t1, {%f5, %f6}];", False, "PTX0803", "requires .v4 type"),
    (f"tex.grad.2d.v4.f32.f32 {_D}, [t1, {{%f5, %f6}}], {{%f7, %f8, %f9, %f10}}, {{%f11, %f12, %f13, %f14}};",
     False, "PTX0805", "Operand vector size doesn't match geometry"),
    (f"tex.level.2dms.v4.f32.s32 {_D}, [t1, {{%r5, %r6, %r7, %r8}}], %r9;", False, "PTX0803",
     "Multi-sample geometry"),
    (f"tex.cube.v4.f32.f32 {_D}, [t1, {{%f5, %f6, %f7, %f8}}], {{%r5, %r6, %r7, %r8}};", False, "PTX0804",
     "Illegal modifier '.cube'"),
    (f"tex.2d.2d.v4.f32.f32 {_D}, [t1, {{%f5, %f6}}];", False, "PTX0802", "Multiple dimension modifiers"),
    (f"tld4.r.1d.v4.f32.f32 {_D}, [t1, {{%f5}}];", False, "PTX0801", "Illegal modifier '.1d'"),
    (f"tld4.2d.v4.f32.f32 {_D}, [t1, {{%f5, %f6}}];", False, "PTX0803", "Component modifier required"),
    ("txq.level.channel_order.b32 %r1, [t1], %r2;", False, "PTX0803", "Illegal query modifier"),
    ("txq.force_unnormalized_coords.b32 %r1, [t1];", False, "PTX0805", ".samplerref expected"),
    ("txq.width.b32 %r1, t1;", False, "PTX0805", "Address expected"),
    ("istypep.texref %p1, t1;", False, "PTX0805", "Arguments mismatch"),
    ("suld.b.2d.b32 %r1, [u1, {%r5, %r6}];", False, "PTX0803", "Clamp modifier required"),
    ("suld.b.2d.b32.trap %r1|%p1, [u1, {%r5, %r6}];", False, "PTX0805", "Predicate output not allowed"),
    ("suld.b.2d.b32.trap %r1, [u1, {%f5, %f6}];", False, "PTX0806", "Arguments mismatch"),
    ("suld.b.2d.b32.trap %r1, [t1, {%r5, %r6}];", False, "PTX0805", ".surfref or .u64 register expected"),
    ("sust.b.2d.ca.b32.trap [u1, {%r5, %r6}], %r1;", False, "PTX0801", "Illegal modifier '.ca'"),
    ("sust.p.2d.b64.trap [u1, {%r5, %r6}], %rd1;", False, "PTX0803", "Unexpected instruction types"),
    ("sured.b.add.2d.b32.trap [u1, {%r5, %r6}], %r1;", False, "PTX0803", "Incorrect type '.b32'"),
    ("sured.b.add.a2d.u32.trap [u1, {%r5, %r6, %r7, %r8}], %r1;", False, "PTX0801", "Illegal modifier '.a2d'"),
    ("suq.num_samples.b32 %r1, [u1];", False, "PTX0801", "Illegal query modifier"),
    ("suq.width.b32 %r1, [t1];", False, "PTX0805", ".surfref or .u64 register expected"),
]

VALID = [
    (f"tex.2d.v4.f32.f32 {_D}, [t1, {{%f5, %f6}}];", False),
    (f"tex.1d.v4.s32.s32 {_R}, [t1, %r5];", False),
    (f"tex.2d.v4.f32.f32 {_D}|%p1, [t1, {{%f5, %f6, %f7, %f8}}];", False),
    (f"tex.a2d.v4.f32.f32 {_D}, [t1, {{%r5, %f6, %f7, %f8}}];", False),
    ("tex.2d.v2.f16x2.f32 {%y1, %y2}, [%rd1, {%f5, %f6}];", False),
    (f"tex.level.cube.v4.f32.f32 {_D}, [t1, {{%f5, %f6, %f7, %f8}}], %f9;", False),
    (f"tex.grad.3d.v4.f32.f32 {_D}, [t1, {{%f5, %f6, %f7, %f8}}], {{%f5, %f6, %f7, %f8}}, "
     "{%f9, %f10, %f11, %f12};", False),
    (f"tex.2d.v4.f32.f32 {_D}, [t1, {{%f5, %f6}}], {{%r5, %r6}}, %f9;", False),
    (f"tex.2d.v4.f32.f32 {_D}, [t1, s1, {{%f5, %f6}}];", True),
    (f"tld4.g.a2d.v4.u32.f32 {_R}, [t1, {{%r5, %f6, %f7, %f8}}];", False),
    ("txq.level.width.b32 %r1, [t1], %r2;", False),
    ("txq.filter_mode.b32 %r1, [s1];", True),
    ("istypep.samplerref %p1, %rd1;", False),
    ("suld.b.a1d.v2.b64.clamp {%rd1, %rd2}, [u1, {%r5, %r6}];", False),
    ("sust.p.2d.v4.b32.zero [u1, {%r5, %r6}], {%r1, %r2, %r3, %r4};", False),
    ("sured.b.min.3d.s64.trap [u1, {%r5, %r6, %r7, %r8}], %rd1;", False),
    ("suq.memory_layout.b32 %r1, [%rd1];", False),
]


def _errors(ptx: str):
    return [d for d in check_source(ptx, filename="case.ptx") if d.severity == "error"]


_LINE = 14      # the instruction's line in `_module`


@pytest.mark.parametrize("line,independent,code,ptxas", INVALID, ids=[c[0] for c in INVALID])
def test_invalid_lines_are_errors_there(line, independent, code, ptxas):
    errors = _errors(_module(line, independent))
    assert [(d.code, d.line) for d in errors][:1] == [(code, _LINE + independent)], errors


@pytest.mark.parametrize("line,independent", VALID, ids=[c[0] for c in VALID])
def test_valid_lines_are_clean(line, independent):
    assert _errors(_module(line, independent)) == []


def test_the_deprecated_tex_space_names_a_texture():
    ptx = _module(f"tex.2d.v4.f32.f32 {_D}, [t2, {{%f5, %f6}}];").replace(
        ".global .texref t1;", ".tex .u64 t2;")
    assert _errors(ptx) == []


@pytest.mark.ptxas
@pytest.mark.skipif(PTXAS is None, reason="ptxas not on PATH")
@pytest.mark.parametrize("line,independent,code,ptxas", INVALID, ids=[c[0] for c in INVALID])
def test_ptxas_refuses_the_invalid_lines_so(line, independent, code, ptxas):
    rc, msg = assemble(_module(line, independent))
    assert rc != 0 and ptxas in msg and f"line {_LINE + independent};" in msg, msg


@pytest.mark.ptxas
@pytest.mark.skipif(PTXAS is None, reason="ptxas not on PATH")
@pytest.mark.parametrize("line,independent", VALID, ids=[c[0] for c in VALID])
def test_ptxas_accepts_the_valid_lines(line, independent):
    rc, msg = assemble(_module(line, independent))
    assert rc == 0, msg


# (line, .version, .target, ptxld's code, a fragment of ptxas's message): the gates ptxas names
GATED = [
    (f"tex.2d.v4.f32.f32 {_D}, [t1, {{%f5, %f6}}], {{%r5, %r6}};", "4.2", "sm_30", "PTX0601",
     "requires PTX ISA .version 4.3"),
    (f"tex.cube.v4.f32.f32 {_D}, [t1, {{%f5, %f6, %f7, %f8}}];", "2.3", "sm_20", "PTX0601",
     "'cubemap textures' requires PTX ISA .version 3.0"),
    (f"tex.2dms.v4.f32.s32 {_D}, [t1, {{%r5, %r6, %r7, %r8}}];", "3.2", "sm_20", "PTX0602",
     "requires .target sm_30"),
    ("txq.level.width.b32 %r1, [t1], %r2;", "4.3", "sm_20", "PTX0602", "requires .target sm_30"),
    ("suld.b.3d.b32.trap %r1, [u1, {%r5, %r6, %r7, %r8}];", "2.3", "sm_20", "PTX0601",
     "'surface instruction with .3d geometry' requires PTX ISA .version 3.0"),
    ("sured.b.min.2d.u64.trap [u1, {%r5, %r6}], %rd1;", "8.0", "sm_90", "PTX0601",
     "requires PTX ISA .version 8.1"),
]


def _at(line: str, version: str, target: str) -> str:
    # (without the .f16x2 registers, which need sm_53; the instruction stays on its line)
    return _module(line).replace(".version 8.5\n.target sm_90", f".version {version}\n.target {target}").replace(
        ".reg .f16x2 %y<4>;", ".reg .b32 %y<4>;")


@pytest.mark.parametrize("line,version,target,code,ptxas", GATED, ids=[c[0] for c in GATED])
def test_gates_are_errors(line, version, target, code, ptxas):
    errors = _errors(_at(line, version, target))
    assert (code, _LINE) in [(d.code, d.line) for d in errors], errors
    # one version or target up, the line is clean
    up = _at(line, {"4.2": "4.3", "2.3": "3.0", "8.0": "8.1"}.get(version, version),
             "sm_30" if code == "PTX0602" else target)
    assert _errors(up) == []


@pytest.mark.ptxas
@pytest.mark.skipif(PTXAS is None, reason="ptxas not on PATH")
@pytest.mark.parametrize("line,version,target,code,ptxas", GATED, ids=[c[0] for c in GATED])
def test_ptxas_names_the_gates(line, version, target, code, ptxas):
    rc, msg = assemble(_at(line, version, target))
    assert rc != 0 and ptxas in msg, msg


def test_a_sampler_query_in_unified_mode_reads_a_texture():
    """ptxas 13.0 (unified mode): "Argument 1 of instruction 'txq': .texref or .u64 register
    expected" for `txq.addr_mode_0` of a `.samplerref` (which the mode does not allow)."""
    ptx = _module("txq.addr_mode_0.b32 %r1, [s1];").replace(".global .surfref u1;",
                                                            ".global .surfref u1;\n.global .samplerref s1;")
    assert [d.code for d in _errors(ptx)] == ["PTX0805"]
    assert _errors(_module("txq.addr_mode_0.b32 %r1, [t1];")) == []
