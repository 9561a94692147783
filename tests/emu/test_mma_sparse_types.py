"""mma.sp with .tf32, .s4/.u4 and .e4m3/.e5m2 (PTX ISA 9.7.14.6), and the one-thread-metadata
.f16 m16n8k16 form, against NumPy products.

Every lane's registers are built here from the ISA's fragment formulas, not from the emulator's
layout objects: with g = lane >> 2, t = lane & 3 and e elements per 32-bit register,
  compressed A, register r, slot j: row g + 8 (r % 2), compressed column 4e (r // 2) + e t + j
    (the ISA's "row = groupID / groupID + 8, firstcol = threadID_in_group * ..." of each form);
  B, register r, slot j: k = 4e r + e t + j, column g;
  C/D (.f32/.s32), element i: row g + 8 (i // 2), column 2t + i % 2.
Sparsity (ISA "Sparse matrix storage"): .tf32 is 1:2 (one element of every pair kept, metadata
nibble 0b0100 for the first, 0b1110 for the second); 4-bit types are 4:8 in pairs (each group of
four element pairs keeps two); FP8 is 2:4. The metadata nibble of (row, group) lies, for 16-bit
units (.tf32: a group is two elements), in thread F of the quad, nibble group + 4 (row >= 8)
(.tf32 m16n8k8, .f16 m16n8k16) or thread 2F + group // 4, nibble group % 4 + 4 (row >= 8)
(.tf32 m16n8k16); for 8-bit units
(4-bit: a group is eight elements; FP8: four) in thread 2F + (row >= 8) + 2 (group // 8), nibble
group % 8. Forms and selectors accepted by ptxas 13.0 (tf32, s4/u4 from sm_80; FP8 from sm_89).
"""
from __future__ import annotations

import shutil
import subprocess
import zlib

import numpy as np
import pytest
from snippets import run, text

import ptxld

F8 = {"e4m3": {0: 0x00, 1: 0x38, 2: 0x40, 3: 0x44, -1: 0xB8, -2: 0xC0, -3: 0xC4},
      "e5m2": {0: 0x00, 1: 0x3C, 2: 0x40, 3: 0x42, -1: 0xBC, -2: 0xC0, -3: 0xC2}}

# (shape, atype, btype, dtype, K, elements per register, A regs, B regs, target, PTX version:
# .sp::ordered_metadata needs 8.5)
FORMS = [
    ("m16n8k16", "f16", "f16", "f32", 16, 2, 2, 2, "sm_80", "8.5"),
    ("m16n8k8", "tf32", "tf32", "f32", 8, 1, 2, 2, "sm_80", "8.5"),
    ("m16n8k16", "tf32", "tf32", "f32", 16, 1, 4, 4, "sm_80", "8.5"),
    ("m16n8k64", "s4", "s4", "s32", 64, 8, 2, 2, "sm_80", "8.5"),
    ("m16n8k64", "u4", "s4", "s32", 64, 8, 2, 2, "sm_80", "8.5"),
    ("m16n8k128", "u4", "u4", "s32", 128, 8, 4, 4, "sm_80", "8.5"),
    ("m16n8k64", "e4m3", "e5m2", "f32", 64, 4, 4, 4, "sm_89", "8.5"),
]
# forms whose metadata one thread of each quad holds (16 units of 16 bits): selectors 0-3
ONE_THREAD = {("tf32", "m16n8k8"), ("f16", "m16n8k16")}


def _bits(v: int, typ: str) -> int:
    if typ == "tf32":
        return int(np.float32(v).view(np.uint32))
    if typ == "f16":
        return int(np.float16(v).view(np.uint16))
    if typ in F8:
        return F8[typ][v]
    return v & 0xF


def _sparse_a(rng, atype: str, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dense A (16 x k) and per (row, group) the two kept unit indices (first < second)."""
    lo, hi = (0, 16) if atype == "u4" else (-8, 8) if atype == "s4" else (-3, 4)
    if atype == "tf32":                       # one of each pair: units (0, 1) or (2, 3)
        keep = rng.integers(0, 2, (16, k // 2))
        first, second = 2 * keep, 2 * keep + 1
        a = np.zeros((16, k), np.int64)
        vals = rng.integers(lo, hi, (16, k // 2))
        a[np.arange(16)[:, None], 2 * np.arange(k // 2)[None, :] + keep] = vals
        return a, first, second
    per_unit = 2 if atype in ("s4", "u4") else 1          # elements per 8-bit unit
    units = k // per_unit
    first = np.zeros((16, units // 4), np.int64)
    second = np.zeros_like(first)
    a = np.zeros((16, k), np.int64)
    for r in range(16):
        for g in range(units // 4):
            i0, i1 = sorted(rng.choice(4, 2, replace=False))
            first[r, g], second[r, g] = i0, i1
            for u in (i0, i1):
                for e in range(per_unit):
                    a[r, (4 * g + u) * per_unit + e] = rng.integers(lo, hi)
    return a, first, second


def _metadata(first, second, shape: str, atype: str, sel: int) -> np.ndarray:
    meta = np.zeros(32, np.int64)
    for r in range(16):
        for g in range(first.shape[1]):
            nib = first[r, g] | (second[r, g] << 2)
            if atype in ("tf32", "f16"):
                thread, pos = (sel, g + 4 * (r // 8)) if (atype, shape) in ONE_THREAD else \
                    (2 * sel + g // 4, g % 4 + 4 * (r // 8))
            else:
                thread, pos = 2 * sel + r // 8 + 2 * (g // 8), g % 8
            meta[4 * (r % 8) + thread] |= nib << (4 * pos)
    return meta


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f"{f[0]}.{f[1]}.{f[2]}")
@pytest.mark.parametrize("sel", [0, 1, 3])
def test_sparse_mma_matches_numpy(form, sel):
    shape, atype, btype, dtype, k, e, na, nb, _, _ = form
    if sel > _top_selector(form):
        pytest.skip("sparsity selector out of range for this form (ptxas)")
    rng = np.random.default_rng(zlib.crc32(f"{shape}.{atype}.{btype}.{sel}".encode()))
    a, first, second = _sparse_a(rng, atype, k)
    blo, bhi = (0, 16) if btype == "u4" else (-8, 8) if btype == "s4" else (-3, 4)
    bm = rng.integers(blo, bhi, (k, 8))
    cm = rng.integers(-5, 6, (16, 8))
    comp = np.zeros((16, k // 2), np.int64)
    for r in range(16):
        comp[r] = _compress(a[r], first[r], second[r], atype)
    rows = np.zeros((32, 16), np.uint64)
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for r in range(na):
            word = 0
            for j in range(e):
                word |= _bits(int(comp[g + 8 * (r % 2), 4 * e * (r // 2) + e * t + j]), atype) << (32 // e * j)
            rows[lane, r] = word
        for r in range(nb):
            word = 0
            for j in range(e):
                word |= _bits(int(bm[4 * e * r + e * t + j, g]), btype) << (32 // e * j)
            rows[lane, 4 + r] = word
        for i in range(4):
            c = int(cm[g + 8 * (i // 2), 2 * t + i % 2])
            rows[lane, 8 + i] = int(np.float32(c).view(np.uint32)) if dtype == "f32" else c & 0xFFFFFFFF
    rows[:, 12] = _metadata(first, second, shape, atype, sel).astype(np.uint64)
    packed = rows[:, 0::2] | (rows[:, 1::2] << np.uint64(32))
    out = _run(_kernel_text(form, sel), packed)
    want = a @ bm + cm
    for lane in range(32):
        g, t = lane >> 2, lane & 3
        for i in range(4):
            got = int(out[lane, i])
            value = float(np.uint32(got).view(np.float32)) if dtype == "f32" else np.int64(np.uint32(got).view(np.int32))
            assert value == want[g + 8 * (i // 2), 2 * t + i % 2], (lane, i)


def _compress(row: np.ndarray, first: np.ndarray, second: np.ndarray, atype: str) -> np.ndarray:
    """The kept elements of a row, in K order (what the ISA calls the packed operand)."""
    per_unit = {"tf32": 0.5, "s4": 2, "u4": 2}.get(atype, 1)
    out = []
    for g in range(len(first)):
        for u in (first[g], second[g]):
            if per_unit == 0.5:
                if u % 2 == 0:                   # units (2i, 2i+1) are element i of the pair
                    out.append(row[2 * g + u // 2])
            else:
                start = int((4 * g + u) * per_unit)
                out.extend(row[start:start + int(per_unit)])
    return np.array(out)


def _kernel_text(form, sel: int) -> str:
    """A kernel: each lane unpacks its registers from its input row, runs the mma.sp, stores D."""
    shape, atype, btype, dtype, _, _, na, nb, target, version = form
    ty = ".f32" if dtype == "f32" else ".s32"
    regs = lambda name, n: "{" + ", ".join(f"%{name}{i}" for i in range(n)) + "}"  # noqa: E731
    body = "\n".join(f"mov.b64 {{%w{2 * i}, %w{2 * i + 1}}}, %in{i};" for i in range(7))
    body += "\n" + "\n".join(f"mov.b32 %a{i}, %w{i};" for i in range(na))
    body += "\n" + "\n".join(f"mov.b32 %b{i}, %w{4 + i};" for i in range(nb))
    body += "\n" + "\n".join(f"mov.b32 %c{i}, %w{8 + i};" for i in range(4))
    body += (f"\nmma.sp::ordered_metadata.sync.aligned.{shape}.row.col{ty}.{atype}.{btype}{ty} "
             f"{regs('d', 4)}, {regs('a', na)}, {regs('b', nb)}, {regs('c', 4)}, %w12, {sel};\n")
    body += "\n".join(f"mov.b32 %v, %d{i}; cvt.u64.u32 %out{i}, %v;" for i in range(4))
    decls = f".reg .b32 %w<14>, %a<4>, %b<4>, %v;\n.reg {ty} %c<4>, %d<4>;"
    return text(body, decls, target).replace(".version 8.0", f".version {version}")


def _top_selector(form) -> int:
    shape, atype = form[0], form[1]
    return 3 if (atype, shape) in ONE_THREAD else 0 if shape == "m16n8k128" or atype in F8 else 1


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
@pytest.mark.parametrize("form", FORMS, ids=lambda f: f"{f[0]}.{f[1]}.{f[2]}")
def test_ptxas_takes_the_forms_and_selectors(form, tmp_path):
    """The forms run above are legal for ptxas on their target, every selector up to the top one
    (and the next is refused: out of range)."""
    top = _top_selector(form)
    for sel in range(top + 2):
        path = tmp_path / f"k{sel}.ptx"
        path.write_text(_kernel_text(form, sel))
        done = subprocess.run(["ptxas", f"-arch={form[8]}", str(path), "-o", str(tmp_path / "k.cubin")],
                              capture_output=True, text=True, check=False)
        assert (done.returncode == 0) == (sel <= top), (sel, done.stderr)


def _run(code, packed):
    n = packed.shape[0]
    rows = np.zeros((n, 8), np.uint64)
    rows[:, :packed.shape[1]] = packed
    out = np.zeros((n, 8), np.uint64)
    ptxld.RawModule(code=code).get_function("k")((1,), (n,), [rows, out])
    return out


def test_tf32_metadata_outside_the_two_valid_nibbles_is_reported():
    meta_body = """mov.b32 %w0, 0x99999999;
mma.sp::ordered_metadata.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%d0, %d1, %d2, %d3},
    {%a0, %a1}, {%a0, %a1}, {%d0, %d1, %d2, %d3}, %w0, 0;"""
    with pytest.raises(ptxld.emu.errors.EmulationError, match="0b0100 or 0b1110"):
        run(meta_body, np.zeros((32, 1), np.uint64), ".reg .b32 %w0, %a<2>;\n.reg .f32 %d<4>;")
