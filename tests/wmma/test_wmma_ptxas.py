"""Differential tests: the wmma tables against NVIDIA ptxas (skipped where ptxas is absent)."""
import shutil
import subprocess

import pytest

from ptxld.spec import wmma as spec

pytestmark = pytest.mark.ptxas
PTXAS = shutil.which("ptxas")
if PTXAS is None:
    pytest.skip("ptxas not found", allow_module_level=True)

HEADER = """.version {version}
.target {target}
.address_size 64
.visible .entry k(.param .u64 p)
{{
  .reg .b64 %rd<2>;
  .reg .b32 %r<40>;
  .reg .f64 %fd<8>;
  ld.param.u64 %rd0, [p];
"""


def regs(n, type_, start=0):
    prefix = "%fd" if type_ == "f64" else "%r"
    return "{" + ", ".join(f"{prefix}{start + i}" for i in range(n)) + "}"


def assemble(body, target="sm_90", version="9.0", arch=None):
    src = HEADER.format(version=version, target=target) + body + "  ret;\n}\n"
    proc = subprocess.run([PTXAS, f"-arch={arch or target}", "-", "-o", "/dev/null"], input=src,
                          capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stderr


def load_line(f, layout, nregs=None):
    return (f"  wmma.load.{f.matrix}.sync.aligned.{layout}.{f.shape}.{f.type} "
            f"{regs(nregs or f.nregs, f.type)}, [%rd0];\n")


def body_for(fragments):
    lines = []
    for f in fragments:
        for layout in f.layouts:
            if f.matrix == "d":
                lines.append(f"  wmma.store.d.sync.aligned.{layout}.{f.shape}.{f.type} [%rd0], "
                             f"{regs(f.nregs, f.type)};\n")
            else:
                lines.append(load_line(f, layout))
    return "".join(lines)


def mma_line(m, al, bl):
    frag = {x: spec.fragment(m.shape, x, t) for x, t in
            (("a", m.atype), ("b", m.btype), ("c", m.ctype), ("d", m.dtype))}
    op = f".{m.op}" if m.op else ""
    operands, start = [], 0
    for x in "dabc":
        operands.append(regs(frag[x].nregs, frag[x].type, start))
        start += frag[x].nregs if frag[x].type != "f64" else 2
    return (f"  wmma.mma{op}.sync.aligned.{al}.{bl}.{m.shape}.{'.'.join(m.suffix_types)} "
            f"{', '.join(operands)};\n")


@pytest.mark.parametrize("target", ["sm_90", "sm_75"])
def test_every_legal_load_store_and_mma_assembles(target):
    sm = int(target[3:])
    frags = [f for f in spec.legal_combinations() if f.gate.min_sm <= sm]
    body = body_for(frags)
    for m in spec.mma_combinations():
        if m.gate.min_sm <= sm:
            body += "".join(mma_line(m, al, bl) for al in m.alayouts for bl in m.blayouts)
    rc, err = assemble(body, target)
    assert rc == 0, err


GRID = [(s, m, t) for s in spec.SHAPES for m in "abc" for t in spec.ELEMENT_BITS
        if not spec.is_legal(s, m, t)]


@pytest.mark.parametrize("shape,matrix,type_", GRID)
def test_combinations_outside_the_table_are_rejected(shape, matrix, type_):
    f = spec.FragmentSpec(shape, matrix, type_, 8, 64 if type_ == "f64" else 32, (), ("row",),
                          spec.Gate((6, 3), 70))
    rc, _ = assemble(load_line(f, "row"))
    assert rc != 0


@pytest.mark.parametrize("f", [f for f in spec.legal_combinations()
                               if f.matrix in "ab" and len(f.layouts) == 1],
                         ids=lambda f: "-".join(f.key))
def test_sub_byte_layout_rule(f):
    wrong = "col" if f.layouts == ("row",) else "row"
    rc, err = assemble(load_line(f, wrong))
    assert rc != 0 and "layout" in err


@pytest.mark.parametrize("f", [f for f in spec.legal_combinations() if f.matrix == "a"],
                         ids=lambda f: "-".join(f.key))
def test_register_count_is_exact(f):
    for n in {1, 2, 4, 8} - {f.nregs}:
        rc, _ = assemble(load_line(f, f.layouts[0], n))
        assert rc != 0, n


@pytest.mark.parametrize("f", [f for f in spec.legal_combinations()
                               if f.gate.min_sm == 80 and f.matrix != "d"],
                         ids=lambda f: "-".join(f.key))
def test_sm80_gate(f):
    rc, err = assemble(load_line(f, f.layouts[0]), target="sm_75")
    assert rc != 0 and "sm_80" in err


def test_aligned_rule():
    f = spec.fragment("m16n16k16", "a", "f16")
    with_aligned = load_line(f, "row")
    without = with_aligned.replace(".aligned", "")
    assert assemble(with_aligned, "sm_75", "6.3")[0] == 0
    assert assemble(without, "sm_75", "6.3")[0] != 0  # required from 6.3
    # before 6.3 (.target sm_70, assembled for sm_75 as ptxas 13 cannot emit sm_70):
    assert assemble(without, "sm_70", "6.2", arch="sm_75")[0] == 0
    rc, err = assemble(with_aligned, "sm_70", "6.2", arch="sm_75")
    assert rc != 0 and "6.3" in err
