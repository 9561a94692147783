"""The mma.sync record's forms against ptxas 13.0: every shape/type form of `spec.mma.MMA_KINDS`
is clean at its minimum target and PTX ISA version, and the near misses ptxas refuses are errors.
The ptxas half compares verdicts case by case (skipped without ptxas)."""
from __future__ import annotations

import pytest

from ptxas_util import PTXAS, assemble
from ptxld.checker import check_source
from ptxld.spec import mma as spec
from ptxld.wmma import matrix as M

_REG = {"f64": "%fd", "f32": "%f"}


def _regs(n: int, prefix: str, base: int) -> str:
    return "{" + ", ".join(f"{prefix}{base + i}" for i in range(n)) + "}"


def _kernel(opcode: str, d: str, a: str, c: str, counts, target: str, version: str) -> str:
    nd, na, nb, nc = counts
    dr, ar, cr = _REG.get(d, "%r"), _REG.get(a if a == "f64" else "", "%r"), _REG.get(c, "%r")
    return (f".version {version}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n"
            ".reg .b32 %r<64>;\n.reg .f32 %f<64>;\n.reg .f64 %fd<64>;\n"
            f"{opcode} {_regs(nd, dr, 0)}, {_regs(na, ar, 16)}, {_regs(nb, ar, 32)}, {_regs(nc, cr, 48)};\n"
            "ret;\n}\n")


def _cases():
    """(name, ptx, ptxas should accept)."""
    out = []
    for kind in spec.MMA_KINDS:
        for d, a, b, c in spec.mma_type_combinations(kind):
            lays = M.mma_layouts(kind.shape, a, b, c, d)
            counts = tuple(lays[m].nregs for m in "dabc")
            sm = max(kind.min_sm, 75)
            ptx = (8, 7) if a in ("e4m3", "e5m2") else kind.min_ptx
            version = f"{ptx[0]}.{ptx[1]}" if ptx >= (6, 5) else "6.5"
            tail = ".xor.popc" if a == "b1" else ""
            good = f"mma.sync.aligned.{kind.shape}.row.col.{d}.{a}.{b}.{c}{tail}"
            name = f"{kind.shape}.{d}.{a}.{b}.{c}"
            out.append((name, _kernel(good, d, a, c, counts, f"sm_{sm}", version), True))
            out.append((name + "-col.col", _kernel(good.replace(".row.col", ".col.col"), d, a, c, counts,
                                                   f"sm_{sm}", version),
                        kind.shape == "m8n8k4" and a == "f16"))
            if sm > 75:
                out.append((name + "-older-target", _kernel(good, d, a, c, counts, "sm_75", version), False))
            if a not in ("s8", "u8", "s4", "u4"):
                out.append((name + "-satfinite", _kernel(good.replace(".aligned.", ".aligned.satfinite.", 1),
                                                         d, a, c, counts, f"sm_{sm}", version), False))
            if a == "b1":
                out.append((name + "-no-popc", _kernel(good.removesuffix(tail), d, a, c, counts,
                                                       f"sm_{sm}", version), False))
    return out


CASES = _cases()


def _errors(ptx: str):
    return [d for d in check_source(ptx, filename="case.ptx") if d.severity == "error"]


@pytest.mark.parametrize("name,ptx,ok", [c for c in CASES if c[2]], ids=[c[0] for c in CASES if c[2]])
def test_every_mma_form_is_clean_at_its_minimum_target(name, ptx, ok):
    assert _errors(ptx) == []


@pytest.mark.parametrize("name,ptx,ok", [c for c in CASES if not c[2]], ids=[c[0] for c in CASES if not c[2]])
def test_near_misses_are_errors(name, ptx, ok):
    assert _errors(ptx), name


@pytest.mark.ptxas
@pytest.mark.skipif(PTXAS is None, reason="ptxas not on PATH")
def test_verdicts_agree_with_ptxas():
    disagree = []
    for name, ptx, ok in CASES[::3]:          # a fixed third of the cases: the suite stays fast
        rc, msg = assemble(ptx)
        if (rc == 0) != ok or (rc == 0) != (not _errors(ptx)):
            disagree.append(f"{name}: ptxas {'accepts' if rc == 0 else 'refuses'} ({msg.strip()[:120]}), "
                            f"ptxld {'clean' if not _errors(ptx) else 'errors'}")
    assert not disagree, "\n".join(disagree)


# ---- wgmma.mma_async ------------------------------------------------------------------------------

def _wgmma_kernel(opcode: str, dtype: str, nd: int, a_regs: int, tail: str, target: str = "sm_90a") -> str:
    dreg = "%f" if dtype == "f32" else "%r"
    a = _regs(a_regs, "%r", 200) if a_regs else "%rd1"
    return (f".version 8.7\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n"
            ".reg .b32 %r<256>;\n.reg .f32 %f<256>;\n.reg .b64 %rd<4>;\n.reg .pred %p;\n"
            f"{opcode} {_regs(nd, dreg, 0)}, {a}, %rd2{tail};\nret;\n}}\n")


def _wgmma_cases():
    out = []
    for atype, k in spec.WGMMA_K.items():
        ns = spec.wgmma_n_values(atype)
        btype = {"e4m3": "e5m2", "s8": "u8"}.get(atype, atype)
        for dtype in spec.WGMMA_ACC[atype]:
            for n in (ns[0], ns[len(ns) // 2], ns[-1]):
                nd = n // 2 if dtype != "f16" else n // 4
                op = f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.{dtype}.{atype}.{btype}" + (
                    ".and.popc" if atype == "b1" else "")
                tail = {"f16": ", %p, 1, -1, 0, 1", "bf16": ", %p, 1, -1, 0, 1"}.get(atype, ", 1, 1, 1")
                if atype in ("s8", "u8", "b1"):
                    tail = ", 1"
                name = f"m64n{n}k{k}.{dtype}.{atype}"
                out.append((name, _wgmma_kernel(op, dtype, nd, 0, tail), True))
                out.append((name + "-sm_90", _wgmma_kernel(op, dtype, nd, 0, tail, "sm_90"), False))
                out.append((name + "-extra-imm", _wgmma_kernel(op, dtype, nd, 0, tail + ", 1"), False))
                if atype in ("f16", "bf16"):
                    out.append((name + "-regs-a", _wgmma_kernel(op, dtype, nd, 4, ", !%p, 1, 1, 1"), True))
            if atype in ("s8", "b1"):
                bad = op.replace(f"m64n{ns[-1]}", "m64n40")
                out.append((f"m64n40k{k}.{atype}", _wgmma_kernel(bad, "s32", 20, 0, ", 1"), False))
    out.append(("bf16-f16-accumulator", _wgmma_kernel("wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16",
                                                      "f16", 2, 0, ", 1, 1, 1, 0, 0"), False))
    return out


WGMMA_CASES = _wgmma_cases()


@pytest.mark.parametrize("name,ptx,ok", WGMMA_CASES, ids=[c[0] for c in WGMMA_CASES])
def test_wgmma_forms(name, ptx, ok):
    assert (not _errors(ptx)) == ok, [d.message for d in _errors(ptx)]


@pytest.mark.ptxas
@pytest.mark.skipif(PTXAS is None, reason="ptxas not on PATH")
def test_wgmma_verdicts_agree_with_ptxas():
    disagree = []
    for name, ptx, ok in WGMMA_CASES[::4]:
        rc, msg = assemble(ptx)
        if (rc == 0) != ok:
            disagree.append(f"{name}: ptxas {'accepts' if rc == 0 else 'refuses'}: {msg.strip()[:160]}")
    assert not disagree, "\n".join(disagree)


# ---- wgmma.mma_async.sp -----------------------------------------------------------------------------

def _wgmma_sp_cases():
    """(name, ptx, ptxas should accept): every A type at its smallest, a middle and its largest N,
    A by descriptor and (16-bit types) from registers, every selector ptxas takes and the next
    one, and near misses: no selector, an immediate metadata, the dense K."""
    out = []
    for atype, form in spec.WGMMA_SPARSE.items():
        ns = spec.wgmma_n_values(atype)
        btype = {"e4m3": "e5m2", "s8": "u8"}.get(atype, atype)
        imms = {"f16": ", 1, -1, 0, 1", "bf16": ", 1, -1, 0, 1"}.get(atype, ", 1, 1")
        if atype in ("s8", "u8"):
            imms = ""
        for dtype in spec.WGMMA_ACC[atype]:
            for n in (ns[0], ns[len(ns) // 2], ns[-1]):
                nd = n // 2 if dtype != "f16" else n // 4
                op = f"wgmma.mma_async.sp.sync.aligned.m64n{n}k{form.k}.{dtype}.{atype}.{btype}"
                name = f"m64n{n}k{form.k}.{dtype}.{atype}"
                for sel in form.selectors + (form.selectors[-1] + 1,):
                    out.append((f"{name}-sel{sel}", _wgmma_kernel(op, dtype, nd, 0, f", %r250, {sel}, %p{imms}"),
                                sel in form.selectors))
                out.append((name + "-no-selector", _wgmma_kernel(op, dtype, nd, 0, f", %r250, %p{imms}"), False))
                out.append((name + "-immediate-metadata", _wgmma_kernel(op, dtype, nd, 0, f", 5, 0, %p{imms}"), False))
                dense = op.replace(f"k{form.k}.", f"k{form.k // 2}.")
                out.append((name + "-dense-k", _wgmma_kernel(dense, dtype, nd, 0, f", %r250, 0, %p{imms}"), False))
                if atype in ("f16", "bf16"):
                    out.append((name + "-regs-a", _wgmma_kernel(op, dtype, nd, 4, ", %r250, 1, !%p, 1, 1, 1"), True))
    return out


WGMMA_SP_CASES = _wgmma_sp_cases()


@pytest.mark.parametrize("name,ptx,ok", WGMMA_SP_CASES, ids=[c[0] for c in WGMMA_SP_CASES])
def test_wgmma_sp_forms(name, ptx, ok):
    assert (not _errors(ptx)) == ok, [d.message for d in _errors(ptx)]


def test_wgmma_sp_selector_is_named():
    ptx = next(p for n, p, _ in WGMMA_SP_CASES if n == "m64n8k64.f32.e4m3-sel1")
    (d,) = _errors(ptx)
    assert d.code == "PTX0821" and "takes 0" in d.message


@pytest.mark.ptxas
@pytest.mark.skipif(PTXAS is None, reason="ptxas not on PATH")
def test_wgmma_sp_verdicts_agree_with_ptxas():
    disagree = []
    for name, ptx, ok in WGMMA_SP_CASES[::3]:
        rc, msg = assemble(ptx)
        if (rc == 0) != ok:
            disagree.append(f"{name}: ptxas {'accepts' if rc == 0 else 'refuses'}: {msg.strip()[:160]}")
    assert not disagree, "\n".join(disagree)
