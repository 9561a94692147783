"""The mma.sync / ldmatrix / wgmma layout objects against the PTX ISA's fragment formulas,
written out here independently (one formula per table of the ISA), and the explain output."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from cli_runner import CliRunner

from ptxld.cli import main
from ptxld.spec import mma as spec
from ptxld.wmma import matrix as M
from ptxld.wmma.matrix_render import describe, fragments_svg


def _elements(lay):
    """{(lane, element index i): (row, col)} with i = register · per_register + slot, the ISA's
    a_i / b_i / c_i numbering."""
    out = {}
    for lane in range(lay.threads):
        for reg in range(lay.nregs):
            for slot in range(lay.slots):
                out[(lane, reg * lay.slots + slot)] = lay.element(lane, reg, slot)
    return out


# ISA formulas (g = groupID = lane >> 2, t = threadID_in_group = lane % 4)
ISA = {
    ("m16n8k16", "f16", "a"): lambda g, t, i: (g + 8 * ((i // 2) % 2), 2 * t + (i % 2) + 8 * (i // 4)),
    ("m16n8k16", "f16", "b"): lambda g, t, i: (2 * t + (i % 2) + 8 * (i // 2), g),
    ("m16n8k16", "f16", "c"): lambda g, t, i: (g + 8 * (i // 2), 2 * t + (i % 2)),
    ("m16n8k8", "tf32", "a"): lambda g, t, i: (g + 8 * (i % 2), t + 4 * (i // 2)),
    ("m16n8k8", "tf32", "b"): lambda g, t, i: (t + 4 * i, g),
    ("m16n8k32", "s8", "a"): lambda g, t, i: (g + 8 * ((i // 4) % 2), 4 * t + (i % 4) + 16 * (i // 8)),
    ("m16n8k32", "s8", "b"): lambda g, t, i: (4 * t + (i % 4) + 16 * (i // 4), g),
    ("m8n8k4", "f64", "a"): lambda g, t, i: (g, t),
    ("m8n8k4", "f64", "c"): lambda g, t, i: (g, 2 * t + i),
    ("m16n8k64", "s4", "a"): lambda g, t, i: (g + 8 * ((i // 8) % 2), 8 * t + (i % 8) + 32 * (i // 16)),
    ("m8n8k128", "b1", "b"): lambda g, t, i: (32 * t + i, g),
    ("m16n8k16", "f64", "a"): lambda g, t, i: (g + 8 * (i % 2), t + 4 * (i // 2)),
}
_TYPES = {"f16": ("f16", "f16", "f32", "f32"), "tf32": ("tf32", "tf32", "f32", "f32"),
          "s8": ("s8", "s8", "s32", "s32"), "f64": ("f64",) * 4, "s4": ("s4", "s4", "s32", "s32"),
          "b1": ("b1", "b1", "s32", "s32")}


@pytest.mark.parametrize("key", list(ISA), ids=lambda k: "-".join(k))
def test_mma_fragment_matches_the_isa_formula(key):
    shape, typ, matrix = key
    lay = M.mma_layouts(shape, *_TYPES[typ])[matrix]
    for (lane, i), got in _elements(lay).items():
        assert got == ISA[key](lane >> 2, lane & 3, i), (key, lane, i)


def test_m8n8k4_f16_accumulator_per_quadpair():
    lay = M.mma_layouts("m8n8k4", "f16", "f16", "f32", "f32", "row", "col")["c"]
    for (lane, i), got in _elements(lay).items():
        h = lane >> 4
        want = ((lane & 1) + (i & 2) + 4 * h, (i & 4) + (lane & 2) + (i & 1))
        assert got == want
        assert int(lay.group[lane, 0, 0]) == (lane >> 2) % 4


def test_wgmma_accumulator_matches_the_isa_formula():
    lay = M.wgmma_layouts(24, "f16", "f32")["d"]
    assert lay.nregs == 12
    for (thread, i), got in _elements(lay).items():
        w, lane = thread // 32, thread % 32
        g, t = lane >> 2, lane & 3
        assert got == (16 * w + g + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * t + (i % 2))


@pytest.mark.parametrize("count", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_fragment(count, trans):
    lay = M.ldmatrix_layout(count, trans)
    for (lane, i), got in _elements(lay).items():
        j, s = i // 2, i % 2
        g, t = lane >> 2, lane & 3
        assert got == ((8 * j + 2 * t + s, g) if trans else (8 * j + g, 2 * t + s))


def test_every_form_is_a_complete_layout():
    # layout_of validates that every element is held exactly once
    for kind in spec.MMA_KINDS:
        for ab in kind.ab:
            for cd in kind.cd:
                M.mma_layouts(kind.shape, ab, ab, cd, cd)
    for atype, k in spec.WGMMA_K.items():
        for dtype in spec.WGMMA_ACC[atype]:
            for n in spec.wgmma_n_values(atype):
                d = M.wgmma_layouts(n, atype, dtype)["d"]     # 128 threads hold 64 x n values
                assert d.nregs * d.frag.reg_bits * 128 == 64 * n * spec.ELEMENT_BITS[dtype]


def test_no_such_mma_form():
    with pytest.raises(KeyError):
        M.mma_layouts("m16n8k16", "tf32", "tf32", "f32", "f32")
    assert spec.mma_kind("m16n8k16", "f16", "f16", "f16", "f32") is None   # only m8n8k4 mixes
    assert spec.mma_kind("m16n8k32", "s8", "u8", "s32", "s32") is not None


def test_explain_mma_table_and_svg(tmp_path):
    out = tmp_path / "mma.svg"
    res = CliRunner().invoke(main, ["explain", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
                                    "--svg", str(out)])
    assert res.exit_code == 0, res.output
    assert "Requires sm_80 or later and PTX ISA 7.0" in res.output
    # lane 5 (g 1, t 1): a4,a5 are row 1, columns 10-11 (register 2)
    row5 = next(line for line in res.output.splitlines() if line.strip().startswith("5  (1,2-3)"))
    assert "(1,10-11)" in row5
    svg = ET.parse(out).getroot()
    rects = [e for e in svg.iter() if e.tag.endswith("rect")]
    assert len(rects) == 16 * 16 + 16 * 8 + 16 * 8          # A, B, D


def test_explain_rejects_a_form_the_isa_lacks():
    res = CliRunner().invoke(main, ["explain", "mma.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32"])
    assert res.exit_code != 0 and "no such form" in res.output


def test_describe_ldmatrix_and_movmatrix():
    text, lays = describe("ldmatrix.sync.aligned.m8n8.x4.shared.b16")
    assert "Lane 8j+r supplies the address of row r of matrix j" in text and lays["d"].nregs == 4
    text, _ = describe("movmatrix.sync.aligned.m8n8.trans.b16")
    assert "Transposes" in text
    svg = fragments_svg("t", describe("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16")[1])
    assert svg.startswith("<svg") and ET.fromstring(svg) is not None


def test_explain_mma_sp_names_the_metadata_threads():
    text, lays = describe("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32")
    # 8-bit types: thread 2F + (row >= 8) holds a whole row's 8 nibbles (H200 record)
    assert "row g: K0-3: T0 [3:0]" in text and "row g+8: K0-3: T1 [3:0]" in text
    assert lays["a"].nregs == 2


# ---- sparse wgmma (wgmma.mma_async.sp) -----------------------------------------------------------

def _isa_metadata_field(atype: str, selector: int, row: int, chunk: int) -> tuple[int, int]:
    """(warpgroup thread, nibble) of the metadata of (row, chunk): per warp w its rows 16w..16w+15,
    g = row % 8, h = 1 for the second eight rows; 16-bit and tf32 A: quad thread 2F + chunk / 4,
    nibble chunk % 4 + 4h; 8-bit A: quad thread h + 2 (chunk / 8), nibble chunk % 8."""
    w, local = divmod(row, 16)
    g, h = local % 8, local // 8
    if spec.ELEMENT_BITS[atype] == 8:
        quad, nibble = h + 2 * (chunk // 8), chunk % 8
    else:
        quad, nibble = 2 * selector + chunk // 4, chunk % 4 + 4 * h
    return 32 * w + 4 * g + quad, nibble


@pytest.mark.parametrize("atype,chunks,selectors", [
    ("f16", 8, (0, 1)), ("bf16", 8, (0, 1)), ("tf32", 8, (0, 1)), ("e4m3", 16, (0,)),
    ("e5m2", 16, (0,)), ("s8", 16, (0,)), ("u8", 16, (0,))])
def test_wgmma_sparse_metadata_layout(atype, chunks, selectors):
    assert spec.WGMMA_SPARSE[atype].selectors == selectors       # ptxas 13.0's range
    for sel in selectors:
        lay = M.wgmma_sparse_metadata_layout(atype, sel)
        assert lay.dims == (64, chunks)
        for row in range(64):
            for chunk in range(chunks):
                assert lay.field(row, chunk) == _isa_metadata_field(atype, sel, row, chunk)
    with pytest.raises(ValueError, match="sparsity selector"):
        M.wgmma_sparse_metadata_layout(atype, 2)
    assert "b1" not in spec.WGMMA_SPARSE


@pytest.mark.parametrize("atype,k", [("f16", 32), ("tf32", 16), ("s8", 64)])
def test_wgmma_sparse_a_is_the_dense_a_fragment_of_half_the_k(atype, k):
    assert spec.WGMMA_SPARSE[atype].k == k
    lay = M.wgmma_sparse_layouts(16, atype, "s32" if atype == "s8" else "f32")["a"]
    assert lay.dims == (64, k // 2) and lay.nregs == 4
    for (thread, i), got in _elements(lay).items():
        w, lane = divmod(thread, 32)
        g, t = lane >> 2, lane & 3
        want = {"f16": (16 * w + g + 8 * ((i // 2) % 2), 2 * t + i % 2 + 8 * (i // 4)),
                "tf32": (16 * w + g + 8 * (i % 2), t + 4 * (i // 2)),
                "s8": (16 * w + g + 8 * ((i // 4) % 2), 4 * t + i % 4 + 16 * (i // 8))}[atype]
        assert got == want


def test_explain_wgmma_sp_table_and_svg(tmp_path):
    out = tmp_path / "sp.svg"
    res = CliRunner().invoke(main, ["explain", "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16",
                                    "--svg", str(out)])
    assert res.exit_code == 0, res.output
    # selector 1: quad threads 2 (K 0-15) and 3 (K 16-31); rows g+8 in the upper 16 bits
    assert "row g  : K0-3: T2 [3:0]" in res.output and "K16-19: T3 [19:16]" in res.output
    assert "compressed A from registers: 4 register(s)" in res.output
    svg = ET.parse(out).getroot()
    rects = [e for e in svg.iter() if e.tag.endswith("rect")]
    assert len(rects) == 64 * 16 + 64 * 8 + 2 * 64 * 8      # compressed A, D, two metadata maps


def test_explain_rejects_a_sparse_wgmma_form_the_isa_lacks():
    for opcode in ("wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.f16.f16",      # K of the dense form
                   "wgmma.mma_async.sp.sync.aligned.m64n40k64.s32.s8.s8"):       # N not taken by s8
        res = CliRunner().invoke(main, ["explain", opcode])
        assert res.exit_code != 0 and "no such form" in res.output, res.output


def test_every_sparse_wgmma_form_is_a_complete_layout():
    for atype, form in spec.WGMMA_SPARSE.items():
        for dtype in spec.WGMMA_ACC[atype]:
            for n in spec.wgmma_n_values(atype):
                lays = M.wgmma_sparse_layouts(n, atype, dtype)          # layout_of validates
                assert lays["a"].dims == (64, form.k // 2) and lays["d"].dims == (64, n)
        for sel in form.selectors:       # every (row, chunk) field in exactly one (thread, nibble)
            lay = M.wgmma_sparse_metadata_layout(atype, sel)
            fields = {lay.field(r, c) for r in range(64) for c in range(form.chunks)}
            assert len(fields) == 64 * form.chunks


# sm_100 .b8 forms, in memory coordinates (row = the row address lane `row` names, col = byte or
# container of that row), from the PTX ISA's description: .m16n16 is read column-major (.trans),
# a lane holding four consecutive columns (the row's bytes 4t..4t+3 land in memory rows
# 4t..4t+3) across rows g and g+8; .m8n16 four consecutive containers of row g; stmatrix .m16n8
# stores column-major, a lane holding columns 2t, 2t+1 of rows g (bytes 0-1) and g+8 (bytes 2-3).
B8_ISA = {
    ("ldmatrix", "m16n16", True, "b8", None): lambda g, t, reg, s: (16 * (reg // 2) + 4 * t + s, g + 8 * (reg % 2)),
    ("ldmatrix", "m16n16", True, "b8x16", "b6x16_p32"): lambda g, t, reg, s: (16 * (reg // 2) + 4 * t + s, g + 8 * (reg % 2)),
    ("ldmatrix", "m8n16", False, "b8x16", "b4x16_p64"): lambda g, t, reg, s: (8 * reg + g, 4 * t + s),
    ("stmatrix", "m16n8", True, "b8", None): lambda g, t, reg, s: (8 * reg + 2 * t + (s & 1), g + 8 * (s >> 1)),
}


@pytest.mark.parametrize("key", list(B8_ISA), ids=lambda k: f"{k[0]}.{k[1]}.{k[3]}")
@pytest.mark.parametrize("count", [1, 2, 4])
def test_b8_matrix_layouts_follow_the_isa(key, count):
    name, shape, trans, type_, src_fmt = key
    if shape == "m16n16" and count == 4:
        with pytest.raises(KeyError, match="no such ldmatrix form"):
            M.matrix_form_layout(name, shape, count, trans, type_, src_fmt)
        return
    form, lay = M.matrix_form_layout(name, shape, count, trans, type_, src_fmt)
    assert form.nrows == (16 if shape == "m16n16" else 8) * count
    for lane in range(32):
        for reg in range(lay.nregs):
            for s in range(4):
                assert lay.element(lane, reg, s) == B8_ISA[key](lane >> 2, lane & 3, reg, s), (lane, reg, s)


def test_b8_forms_the_isa_lacks_are_refused():
    for args in [("ldmatrix", "m16n16", 1, False, "b8", None),        # .trans is mandatory
                 ("ldmatrix", "m8n16", 1, True, "b8x16", "b6x16_p32"),
                 ("ldmatrix", "m8n16", 1, False, "b8", None),          # .m8n16 needs a source format
                 ("stmatrix", "m16n8", 1, False, "b8", None),
                 ("ldmatrix", "m8n8", 1, False, "b8", None)]:
        with pytest.raises(KeyError):
            M.matrix_form_layout(*args)


def test_describe_b8_forms():
    text, lays = describe("ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8x16.b6x16_p32")
    assert "Lane 16j+r supplies the address of memory row r of matrix j" in text
    assert "16 unsigned 6-bit elements" in text and lays["d"].nregs == 4
    text, lays = describe("stmatrix.sync.aligned.m16n8.x4.trans.shared.b8")
    assert "Lane 8j+r" in text and lays["d"].nregs == 4
    res = CliRunner().invoke(main, ["explain", "ldmatrix.sync.aligned.m16n16.x1.shared.b8"])
    assert res.exit_code != 0 and "no such ldmatrix form" in res.output
