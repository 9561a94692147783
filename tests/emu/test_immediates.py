"""Immediates in every operand position, under a random active mask (PTX ISA 4.5: an immediate
is the same value in every thread). For every instruction the emulator executes, each source
position that may hold an immediate is run twice: with the immediate, and with the same value in
a register (the reference). Every thread's result must agree bit for bit, inactive threads
keeping their old value.

The forms are in immediate_forms.py; the asynchronous instructions (copies, mbarrier, st.async,
elect.sync, tensormap.replace), whose results are memory and barrier state, are in
immediate_async_forms.py and are also checked against a NumPy reference.
`test_every_executed_instruction_is_covered` keeps the lists in step with the emulator's registry
so no instruction is exempt. ptxas checks that every form with an immediate is valid PTX (skipped
without ptxas).
"""
from __future__ import annotations

import bisect
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import immediate_async_forms as A  # noqa: E402
import immediate_forms as F  # noqa: E402

import ptxld  # noqa: E402
from ptxld.emu import inventory  # noqa: E402
from ptxld.emu.alu import lookup  # noqa: E402
from ptxld.emu.alu.core import BUILDERS  # noqa: E402
from ptxld.emu.handlers import HANDLERS  # noqa: E402
from ptxld.spec.decode import decode  # noqa: E402

N = 32          # one warp: the member masks of the warp-synchronous forms are the guard's ballot


def _alu_cases():
    out = []
    for opcode in F.alu_opcodes():
        op = lookup(opcode)
        assert op is not None, opcode
        # the carry flag is an operand the instruction text does not write
        dst = op.dst_types[:len(op.dst_types) - op.carry_out]
        src = op.src_types[:len(op.src_types) - op.carry_in]
        if any(F.width(t) not in (1, 16, 32, 64) for t in dst + src):
            continue                                   # 8- and 128-bit operands: their own tests
        fixed = F.FIXED_IMMEDIATE.get(opcode.split(".")[0], ())
        for pos, t in enumerate(src):
            if F.immediate_allowed(t) and pos not in fixed:
                out.append(("alu", opcode, dst, src, pos))
    return out


def _handler_cases():
    out = []
    for template, dst, src in F.HANDLER_FORMS:
        for pos, t in enumerate(src):
            if F.immediate_allowed(t):
                out.append(("handler", template, dst, src, pos))
    return out


CASES = _alu_cases() + _handler_cases()


def _line(kind, form, dst, src, imms):
    make = F.alu_line if kind == "alu" else F.handler_line
    return make(form, dst, src, imms)


def _fixed(kind, form, values):
    if kind != "alu":
        return {}
    return {p: int(values[0, p]) for p in F.FIXED_IMMEDIATE.get(form.split(".")[0], ())}


def _run(text, values, mask, n_dst):
    kernel = ptxld.RawModule(code=text).get_function("k")
    out = np.zeros((N, 8), np.uint64)
    scratch = np.full(N, 0x1111111111111111, np.uint64)
    kernel((1,), (N,), [values.copy(), out, mask.copy(), scratch])
    return out[:, :n_dst], scratch


def _inputs(seed, src):
    rng = np.random.default_rng(seed)
    values, mask = F.random_inputs(rng, N)
    ballot = int(sum(1 << i for i in range(N) if mask[i]))
    for k, t in enumerate(src):
        if t == F.MASK:
            values[:, k] = ballot
    return values, mask


@pytest.mark.parametrize("kind,form,dst,src,pos", CASES,
                         ids=[f"{c[1].split()[0]}-{c[4]}" for c in CASES])
def test_immediate_equals_register(kind, form, dst, src, pos):
    values, mask = _inputs(hash((form, pos)) & 0xFFFF, src)
    bits = int(values[0, pos])
    if src[pos] == ".pred":
        bits &= 1                                  # the register form reads the byte != 0
    values[:, pos] = bits                          # the reference: the value in a register
    fixed = _fixed(kind, form, values)
    ref = _run(F.kernel_text(_line(kind, form, dst, src, fixed), dst, src), values, mask, len(dst))
    got = _run(F.kernel_text(_line(kind, form, dst, src, {**fixed, pos: bits}), dst, src), values,
               mask, len(dst))
    for r, g in zip(ref, got):
        np.testing.assert_array_equal(g, r)


ASYNC_CASES = [(form, pos) for form in A.FORMS for pos in form.immediate]


def _run_async(text, values, mask, blob, out0):
    out = out0.copy()
    ptxld.RawModule(code=text).get_function("k")((1,), (A.N,), [values.copy(), out, mask.copy(),
                                                                 blob.copy()])
    return out


@pytest.mark.parametrize("form,pos", ASYNC_CASES, ids=[f"{f.opcode.split()[0]}-{p}" for f, p in ASYNC_CASES])
@pytest.mark.parametrize("seed", range(3))
def test_async_immediate_equals_register_and_reference(form, pos, seed):
    values, mask, blob, out0 = A.inputs(form, seed * 7919 + (hash((form.opcode, pos)) & 0xFFFF))
    bits = int(values[0, pos])
    values[:, pos] = bits                          # the same value in every thread's register
    expected = form.reference(values, mask, blob, out0)
    reg = _run_async(A.kernel_text(form, {}), values, mask, blob, out0)
    imm = _run_async(A.kernel_text(form, {pos: bits}), values, mask, blob, out0)
    np.testing.assert_array_equal(reg, expected)
    np.testing.assert_array_equal(imm, expected)


def _covered_names(names) -> set:
    """The instruction names the forms above exercise: each form's decoded name; a form of an
    ALU instruction (`add.cc`) through an opcode with its mnemonic and qualifier; a name whose
    handler is the one of a covered, more specific name (`elect` for `elect.sync`)."""
    opcodes = [c[1] for c in CASES if c[0] == "alu"]
    opcodes += [t.split()[0] for t, _, _ in F.HANDLER_FORMS] + [f.opcode for f in A.FORMS]
    covered = {decode(o).name for o in opcodes}
    for form in inventory.ALU_FORMS:
        mnemonic, qualifier = form.split(".")
        if any(o.split(".")[0] == mnemonic and qualifier in o.split(".")[1:] for o in opcodes):
            covered.add(form)
    for n in names:
        if n in HANDLERS and any(c.startswith(n + ".") and HANDLERS.get(c) is HANDLERS[n] for c in covered):
            covered.add(n)
    return covered


def test_every_executed_instruction_is_covered():
    """Every instruction the emulator executes (by its full name: `cp.async.bulk`, `st.async`)
    has an immediate form above, or is listed in NO_IMMEDIATE (a listed name stands for its
    dotted forms: `wmma` for `wmma.load`)."""
    executed = {name for _, name, _, st, _ in inventory.rows() if st != inventory.NOT_EXECUTED}
    names = set(BUILDERS) | set(HANDLERS) | executed
    covered = _covered_names(names)
    exempt = {n for n in names if any(n == e or n.startswith(e + ".") for e in F.NO_IMMEDIATE)}
    missing = names - covered - exempt
    assert not missing, f"no immediate form for: {sorted(missing)}"


def test_no_instruction_is_both_covered_and_exempt():
    executed = {name for _, name, _, st, _ in inventory.rows() if st != inventory.NOT_EXECUTED}
    names = set(BUILDERS) | set(HANDLERS) | executed
    assert not _covered_names(names) & set(F.NO_IMMEDIATE)


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
def test_forms_are_valid_ptx(tmp_path):
    """ptxas accepts every instruction form above with its immediate."""
    texts, starts, line = [], [], 4
    for i, (kind, form, dst, src, pos) in enumerate(CASES):
        imms = {p: 5 for p in F.FIXED_IMMEDIATE.get(form.split(".")[0], ())} if kind == "alu" else {}
        text = F.kernel_text(_line(kind, form, dst, src, {**imms, pos: 5}), dst, src, name=f"k{i}",
                             header=False)
        starts.append(line)
        texts.append(text)
        line += text.count("\n")
    path = tmp_path / "forms.ptx"
    path.write_text(".version 8.0\n.target sm_80\n.address_size 64\n" + "".join(texts))
    r = subprocess.run(["ptxas", "-arch=sm_80", str(path), "-o", str(tmp_path / "forms.cubin")],
                       capture_output=True, text=True)
    bad = set()
    for m in re.finditer(r"line (\d+); error", r.stderr):
        k = bisect.bisect_right(starts, int(m.group(1))) - 1
        bad.add((CASES[k][1], CASES[k][4]))
    assert not bad and r.returncode == 0, sorted(bad) or r.stderr


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
@pytest.mark.parametrize("target", sorted({f.target for f in A.FORMS}))
def test_async_forms_are_valid_ptx(tmp_path, target):
    """ptxas accepts each asynchronous form, with the register and with the immediate."""
    texts = []
    for i, (form, pos) in enumerate(ASYNC_CASES):
        if form.target == target:
            value = int(form.draw[pos](np.random.default_rng(i), 1)[0])   # in the operand's range
            for j, imms in enumerate(({}, {pos: value})):
                texts.append(A.kernel_text(form, imms, name=f"k{i}_{j}", header=False))
    path = tmp_path / "async_forms.ptx"
    path.write_text(f".version 8.6\n.target {target}\n.address_size 64\n" + "".join(texts))
    r = subprocess.run(["ptxas", f"-arch={target}", str(path), "-o", str(tmp_path / "forms.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
