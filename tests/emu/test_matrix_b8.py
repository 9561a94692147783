"""ldmatrix/stmatrix `.b8` forms (sm_100a): run hand-written PTX in the emulator and compare with
what the PTX ISA's description says each lane receives (ldmatrix) or each row receives
(stmatrix), computed here in plain NumPy/Python from that description, not from the layout
objects; and ptxas takes every form executed here.

What the ISA text says (ldmatrix): the .m16n16 matrix is 16×16 8-bit elements, loaded with
`.trans` (mandatory: memory row c holds matrix column c); each lane receives four consecutive
columns across two rows (a row per group of four lanes; the second register the row 8 below).
The .m8n16 matrix is 8 rows of 16 elements, a lane receiving four consecutive columns of one
row. `.b6x16_p32`/`.b4x16_p64` rows hold 16 unsigned 6-/4-bit elements and 32/64 bits of padding,
each element landing in an 8-bit container. (stmatrix) the .m16n8 matrix of 8-bit elements,
stored with `.trans`; a lane holds two consecutive columns of rows g and g+8.

Left open by the ISA text (the figures show it; ptxld's choice, asserted here): the packed
elements fill the row from bit 0 up, element c in bits [w·c, w·(c+1)), the padding above them;
in its container an element sits in the low bits with the padding bits zero.
"""
from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

import ptxld
from tests.emu.snippets import text

TARGET = "sm_100a"
VERSION = "8.8"
RNG = np.random.default_rng(20261128)

DECLS = ".reg .b32 %d<4>;\n.reg .b64 %sa, %o, %p, %t;"
SHARED = ".shared .align 16 .b8 sm[512];"
# thread t stores its input row (%in0, %in1) at slot t, then names slot %in2 as its row address
PROLOGUE = """mov.u64 %sa, sm;
cvt.u64.u32 %t, %tx;
mul.lo.u64 %o, %t, 16;
add.u64 %o, %sa, %o;
st.shared.v2.u64 [%o], {%in0, %in1};
bar.sync 0;
mul.lo.u64 %p, %in2, 16;
add.u64 %p, %sa, %p;
"""


def _code(body: str) -> str:
    return text(body, DECLS, TARGET, SHARED).replace(".version 8.0", f".version {VERSION}")


def run(body: str, inputs: np.ndarray) -> np.ndarray:
    """One warp runs `body` (tests/emu/snippets.py's kernel, PTX ISA 8.8 for sm_100a)."""
    rows = np.zeros((32, 8), np.uint64)
    rows[:, :inputs.shape[1]] = inputs
    out = np.zeros((32, 8), np.uint64)
    ptxld.RawModule(code=_code(body)).get_function("k")((1,), (32,), [rows, out])
    return out


def _regs(n: int) -> str:
    return "{" + ", ".join(f"%d{i}" for i in range(n)) + "}"


def _ld_body(opcode: str, nregs: int) -> str:
    out = "\n".join(f"cvt.u64.u32 %out{i}, %d{i};" for i in range(nregs))
    return PROLOGUE + f"{opcode} {_regs(nregs)}, [%p];\n" + out


def _st_body(opcode: str, nregs: int) -> str:
    src = "\n".join(f"cvt.u32.u64 %d{i}, %in{3 + i};" for i in range(nregs))
    return (PROLOGUE + src + f"\n{opcode} [%p], {_regs(nregs)};\nbar.sync 0;\n"
            "ld.shared.v2.u64 {%out0, %out1}, [%o];")


def _rows_in(slots: np.ndarray, perm: np.ndarray, extra: np.ndarray | None = None) -> np.ndarray:
    """Per-thread inputs: 16-byte row of slot t, the slot thread t names, then register values."""
    cols = [slots[:, :8].copy().view(np.uint64)[:, 0], slots[:, 8:].copy().view(np.uint64)[:, 0],
            perm.astype(np.uint64)]
    if extra is not None:
        cols += [extra[:, k].astype(np.uint64) for k in range(extra.shape[1])]
    return np.stack(cols, axis=1)


def _elements(row: np.ndarray, bits: int | None) -> list[int]:
    """The 16 elements of a 16-byte row: its bytes, or (packed) 16 unsigned `bits`-bit fields
    from bit 0 up of the little-endian row."""
    if bits is None:
        return [int(x) for x in row]
    whole = int.from_bytes(bytes(row), "little")
    return [(whole >> (bits * c)) & ((1 << bits) - 1) for c in range(16)]


def _word(four: list[int]) -> int:
    return sum(int(v) << (8 * s) for s, v in enumerate(four))


def _expected_m16n16(slots, perm, count, bits):
    """Register 2j+k of lane L: matrix j's row L/4 + 8k, columns 4(L%4)..4(L%4)+3, where matrix
    j's column c is the memory row lane 16j + c names."""
    out = np.zeros((32, 2 * count), np.uint64)
    for j in range(count):
        col = [_elements(slots[perm[16 * j + c]], bits) for c in range(16)]   # col[c][row]
        for lane in range(32):
            for k in range(2):
                row = lane // 4 + 8 * k
                out[lane, 2 * j + k] = _word([col[4 * (lane % 4) + s][row] for s in range(4)])
    return out


def _expected_m8n16(slots, perm, count, bits):
    """Register j of lane L: row L/4 of matrix j (named by lane 8j + L/4), elements 4(L%4)..+3."""
    out = np.zeros((32, count), np.uint64)
    for j in range(count):
        for lane in range(32):
            row = _elements(slots[perm[8 * j + lane // 4]], bits)
            out[lane, j] = _word(row[4 * (lane % 4): 4 * (lane % 4) + 4])
    return out


def _expected_m16n8_store(initial, perm, regs, count):
    """Matrix j (16×8): lane L's register j byte s is element (L/4 + 8(s>>1), 2(L%4) + (s&1));
    column c of matrix j goes to the row lane 8j + c names (column-major, .trans)."""
    mem = initial.copy()
    for j in range(count):
        m = np.zeros((16, 8), np.uint8)
        for lane in range(32):
            for s in range(4):
                m[lane // 4 + 8 * (s >> 1), 2 * (lane % 4) + (s & 1)] = (int(regs[lane, j]) >> (8 * s)) & 0xFF
        for c in range(8):
            mem[perm[8 * j + c]] = m[:, c]
    return mem


LD_FORMS = [  # (opcode, registers, count, shape, packed bits)
    ("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8", 2, 1, "m16n16", None),
    ("ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8", 4, 2, "m16n16", None),
    ("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8x16.b6x16_p32", 2, 1, "m16n16", 6),
    ("ldmatrix.sync.aligned.m16n16.x2.trans.shared::cta.b8x16.b4x16_p64", 4, 2, "m16n16", 4),
    ("ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b6x16_p32", 1, 1, "m8n16", 6),
    ("ldmatrix.sync.aligned.m8n16.x2.shared.b8x16.b4x16_p64", 2, 2, "m8n16", 4),
    ("ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b6x16_p32", 4, 4, "m8n16", 6),
    ("ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b4x16_p64", 4, 4, "m8n16", 4),
]
ST_FORMS = [
    ("stmatrix.sync.aligned.m16n8.x1.trans.shared.b8", 1),
    ("stmatrix.sync.aligned.m16n8.x2.trans.shared.b8", 2),
    ("stmatrix.sync.aligned.m16n8.x4.trans.shared::cta.b8", 4),
]




@pytest.mark.parametrize("form", LD_FORMS, ids=lambda f: f[0].split("aligned.")[1])
def test_ldmatrix_b8_lanes_receive_what_the_isa_describes(form):
    opcode, nregs, count, shape, bits = form
    slots = RNG.integers(0, 256, (32, 16), dtype=np.uint8)
    perm = RNG.permutation(32)                   # rows need not be contiguous in memory
    got = run(_ld_body(opcode, nregs), _rows_in(slots, perm))
    got = got[:, :nregs]
    want = (_expected_m16n16 if shape == "m16n16" else _expected_m8n16)(slots, perm, count, bits)
    assert np.array_equal(got, want)


def test_packed_elements_have_zero_padding_in_their_containers():
    """A row of all ones: every 6-bit element is 0x3F, every container 0x3F (padding zero)."""
    slots = np.full((32, 16), 0xFF, np.uint8)
    perm = np.arange(32)
    got = run(_ld_body(LD_FORMS[4][0], 1), _rows_in(slots, perm))
    assert (got[:, 0] == 0x3F3F3F3F).all()


@pytest.mark.parametrize("form", ST_FORMS, ids=lambda f: f[0].split("aligned.")[1])
def test_stmatrix_b8_rows_receive_what_the_isa_describes(form):
    opcode, count = form
    initial = RNG.integers(0, 256, (32, 16), dtype=np.uint8)
    perm = RNG.permutation(32)
    regs = RNG.integers(0, 1 << 32, (32, count), dtype=np.uint64)
    got = run(_st_body(opcode, count), _rows_in(initial, perm, regs))
    mem = np.stack([got[:, 0], got[:, 1]], axis=1).copy().view(np.uint8).reshape(32, 16)
    assert np.array_equal(mem, _expected_m16n8_store(initial, perm, regs, count))


def test_ldmatrix_after_stmatrix_round_trips_through_the_m16n16_transpose():
    """stmatrix .m16n8.x2.trans writes a 16×16 matrix column-major (two 16×8 halves);
    ldmatrix .m16n16.x1.trans reads it back: lane L's bytes are the matrix's row L/4 (+8)."""
    regs = RNG.integers(0, 1 << 32, (32, 2), dtype=np.uint64)
    body = PROLOGUE.replace("%in2", "%t") + """cvt.u32.u64 %d0, %in3;
cvt.u32.u64 %d1, %in4;
stmatrix.sync.aligned.m16n8.x2.trans.shared.b8 [%p], {%d0, %d1};
bar.sync 0;
ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%d2, %d3}, [%p];
cvt.u64.u32 %out0, %d2;
cvt.u64.u32 %out1, %d3;"""
    perm = np.arange(32)
    got = run(body, _rows_in(np.zeros((32, 16), np.uint8), perm, regs))
    matrix = np.zeros((16, 16), np.uint8)            # matrix j = columns 8j..8j+7
    for lane in range(32):
        for j in range(2):
            for s in range(4):
                matrix[lane // 4 + 8 * (s >> 1), 8 * j + 2 * (lane % 4) + (s & 1)] = \
                    (int(regs[lane, j]) >> (8 * s)) & 0xFF
    for lane in range(32):
        for k in range(2):
            assert int(got[lane, k]) == _word(list(matrix[lane // 4 + 8 * k, 4 * (lane % 4): 4 * (lane % 4) + 4]))


def test_misaligned_m16n16_row_names_the_lane_and_its_row():
    body = _ld_body(LD_FORMS[0][0], 2).replace("add.u64 %p, %sa, %p;", "add.u64 %p, %sa, %p;\nadd.u64 %p, %p, 8;")
    with pytest.raises(ptxld.emu.errors.MisalignedAddressError, match=r"lane 0 \(row 0 of matrix 0\)"):
        run(body, _rows_in(np.zeros((32, 16), np.uint8), np.arange(32)))


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
@pytest.mark.parametrize("opcode", [f[0] for f in LD_FORMS] + [f[0] for f in ST_FORMS])
def test_ptxas_takes_every_executed_form(opcode, tmp_path):
    nregs = dict((f[0], f[1]) for f in LD_FORMS).get(opcode) or dict(ST_FORMS)[opcode]
    body = _ld_body(opcode, nregs) if opcode.startswith("ld") else _st_body(opcode, nregs)
    path = tmp_path / "k.ptx"
    path.write_text(_code(body))
    done = subprocess.run(["ptxas", f"-arch={TARGET}", str(path), "-o", str(tmp_path / "k.cubin")],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
