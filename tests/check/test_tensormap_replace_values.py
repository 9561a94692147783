"""PTX0820: tensormap.replace's ordinal and enumerated values against ptxas 13.0.

Each case's verdict was measured with ptxas 13.0 (kept here, so no ptxas is needed); where ptxas
is installed the test measures it again. The ranges come from ptxld.spec.tensormap."""
from __future__ import annotations

import pytest

from ptxas_util import PTXAS, assemble
from ptxld.checker import check_source

# (instruction after `tensormap.replace.tile.`, .version, .target, ptxas accepts)
CASES = [
    ("fill_mode.global.b1024.b32 [%rd1], 1", "8.3", "sm_90a", True),
    ("fill_mode.global.b1024.b32 [%rd1], 2", "8.3", "sm_90a", False),
    ("interleave_layout.global.b1024.b32 [%rd1], 2", "8.3", "sm_90a", True),
    ("interleave_layout.global.b1024.b32 [%rd1], 3", "8.3", "sm_90a", False),
    ("elemtype.global.b1024.b32 [%rd1], 15", "8.8", "sm_100a", True),
    ("elemtype.global.b1024.b32 [%rd1], 16", "8.8", "sm_100a", False),
    ("elemtype.global.b1024.b32 [%rd1], %r1", "8.3", "sm_90a", False),
    ("swizzle_mode.global.b1024.b32 [%rd1], 3", "8.3", "sm_90a", True),
    ("swizzle_mode.global.b1024.b32 [%rd1], 5", "8.8", "sm_103a", False),
    ("swizzle_atomicity.global.b1024.b32 [%rd1], 3", "8.6", "sm_100a", True),
    ("swizzle_atomicity.global.b1024.b32 [%rd1], 4", "8.6", "sm_100a", False),
    ("box_dim.global.b1024.b32 [%rd1], 4, 16", "8.3", "sm_90a", True),
    ("box_dim.global.b1024.b32 [%rd1], 5, 16", "8.3", "sm_90a", False),
    ("box_dim.global.b1024.b32 [%rd1], %r1, 16", "8.3", "sm_90a", False),
    ("box_dim.global.b1024.b32 [%rd1], 1, %r1", "8.3", "sm_90a", True),      # a register value
    ("global_stride.global.b1024.b64 [%rd1], 4, 256", "8.3", "sm_90a", True),
    ("rank.global.b1024.b32 [%rd1], %r1", "8.3", "sm_90a", True),
]


def module(ins: str, version: str, target: str) -> str:
    return (f".version {version}\n.target {target}\n.address_size 64\n"
            f".visible .entry k(.param .u64 p)\n{{\n.reg .b64 %rd<4>;\n.reg .b32 %r<4>;\n"
            f"ld.param.u64 %rd1, [p];\nmov.u32 %r1, 1;\ntensormap.replace.tile.{ins};\nret;\n}}\n")


@pytest.mark.parametrize("ins,version,target,accepts", CASES, ids=[c[0] for c in CASES])
def test_ptx0820_agrees_with_ptxas(ins, version, target, accepts):
    src = module(ins, version, target)
    codes = [d.code for d in check_source(src) if d.severity == "error"]
    assert codes == ([] if accepts else ["PTX0820"]), codes
    if PTXAS:
        rc, out = assemble(src)
        assert (rc == 0) == accepts, out


@pytest.mark.parametrize("version,target,code", [
    ("8.3", "sm_90a", None), ("8.2", "sm_90a", "PTX0601"), ("9.0", "sm_90", "PTX0602"),
    ("9.0", "sm_100", "PTX0602"), ("9.0", "sm_120", "PTX0602"), ("9.0", "sm_120a", None),
    ("9.0", "sm_121f", None), ("8.8", "sm_101a", None),
])
def test_the_instruction_gate_agrees_with_ptxas(version, target, code):
    """tensormap.replace: PTX ISA 8.3 and the sm_90a-and-later architecture/family targets only."""
    src = module("rank.global.b1024.b32 [%rd1], 1", version, target)
    codes = [d.code for d in check_source(src) if d.severity == "error"]
    assert codes == ([] if code is None else [code]), codes
    if PTXAS:
        rc, out = assemble(src)
        assert (rc == 0) == (code is None), out
