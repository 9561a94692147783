"""ptxld.spec.wmma against independent references transcribed by hand:
the seed's syntax blocks, the ptxas-measured tables (spec/ptxas-vs-seeds.md §E, §C, §A11),
and the storage tables of spec/wmma.md §3."""
import itertools

import pytest

from ptxld.spec import wmma as spec

# -- seed 004 syntax blocks: (shapes, {matrix: types}, forced layouts) ------------------------
F16_SHAPES = ["m16n16k16", "m8n32k16", "m32n8k16"]
SEED_BLOCKS = [
    (F16_SHAPES, {"a": ["f16", "s8", "u8"], "b": ["f16", "s8", "u8"], "c": ["f16", "f32", "s32"]}),
    (F16_SHAPES, {"a": ["bf16"], "b": ["bf16"], "c": ["f32"]}),
    (["m16n16k8"], {"a": ["tf32"], "b": ["tf32"], "c": ["f32"]}),
    (["m8n8k4"], {"a": ["f64"], "b": ["f64"], "c": ["f64"]}),
    (["m8n8k32"], {"a": ["s4", "u4"], "b": ["s4", "u4"], "c": ["s32"]}),
    (["m8n8k128"], {"a": ["b1"], "b": ["b1"], "c": ["s32"]}),
]
PTXAS_EXTENSIONS = {("m8n8k32", "c", "f32"), ("m8n8k128", "c", "f32")}  # §A11

# -- spec/ptxas-vs-seeds.md §E fragment register counts (measured) ------------------------
PTXAS_COUNTS = {
    "m16n16k16": {"a": {"f16": 8, "s8": 2, "u8": 2, "bf16": 4},
                  "b": {"f16": 8, "s8": 2, "u8": 2, "bf16": 4},
                  "c": {"f16": 4, "f32": 8, "s32": 8}},
    "m8n32k16": {"a": {"f16": 8, "s8": 1, "u8": 1, "bf16": 2},
                 "b": {"f16": 8, "s8": 4, "u8": 4, "bf16": 8},
                 "c": {"f16": 4, "f32": 8, "s32": 8}},
    "m32n8k16": {"a": {"f16": 8, "s8": 4, "u8": 4, "bf16": 8},
                 "b": {"f16": 8, "s8": 1, "u8": 1, "bf16": 2},
                 "c": {"f16": 4, "f32": 8, "s32": 8}},
    "m16n16k8": {"a": {"tf32": 4}, "b": {"tf32": 4}, "c": {"f32": 8}},
    "m8n8k4": {"a": {"f64": 1}, "b": {"f64": 1}, "c": {"f64": 2}},
    "m8n8k32": {"a": {"s4": 1, "u4": 1}, "b": {"s4": 1, "u4": 1}, "c": {"s32": 2}},
    "m8n8k128": {"a": {"b1": 1}, "b": {"b1": 1}, "c": {"s32": 2}},
}

# §E register classes
PTXAS_CLASSES = {
    "f16": {"b32", "f16x2"}, "bf16": {"b32"}, "tf32": {"b32"}, "s8": {"b32", "s32", "u32"},
    "u8": {"b32", "s32", "u32"}, "s32": {"b32", "s32", "u32"}, "f32": {"b32", "f32"},
    "f64": {"f64", "b64"}, "s4": {"b32", "s32", "u32", "f32", "f16x2"},
    "u4": {"b32", "s32", "u32", "f32", "f16x2"}, "b1": {"b32", "s32", "u32", "f32", "f16x2"},
}

# spec/wmma.md §3 default strides: shape → (A row, A col, B row, B col, C row, C col)
DEFAULT_STRIDES = {
    "m16n16k16": (16, 16, 16, 16, 16, 16), "m8n32k16": (16, 8, 32, 16, 32, 8),
    "m32n8k16": (16, 32, 8, 16, 8, 32), "m8n8k32": (32, 8, 8, 32, 8, 8),
    "m8n8k128": (128, 8, 8, 128, 8, 8), "m16n16k8": (8, 16, 16, 8, 16, 16),
    "m8n8k4": (4, 8, 8, 4, 8, 8),
}

# spec/wmma.md §3 fragment bytes F: (type, shape) → (F(A), F(B)); C/D per type
F_AB = {("f16", s): (32, 32) for s in F16_SHAPES}
F_AB |= {("s8", "m16n16k16"): (8, 8), ("s8", "m8n32k16"): (4, 16), ("s8", "m32n8k16"): (16, 4)}
F_AB |= {("bf16", "m16n16k16"): (16, 16), ("bf16", "m8n32k16"): (8, 32),
         ("bf16", "m32n8k16"): (32, 8), ("tf32", "m16n16k8"): (16, 16), ("f64", "m8n8k4"): (8, 8),
         ("s4", "m8n8k32"): (4, 4), ("b1", "m8n8k128"): (4, 4)}
F_CD = {("f16", s): 16 for s in F16_SHAPES} | {("f32", s): 32 for s in F16_SHAPES + ["m16n16k8"]}
F_CD |= {("s32", s): 32 for s in F16_SHAPES} | {("f64", "m8n8k4"): 16,
                                               ("s32", "m8n8k32"): 8, ("s32", "m8n8k128"): 8}

# spec/ptxas-vs-seeds.md §C (measured) and wmma.md §5: minimum target per type
MIN_SM = {"f16": 70, "s8": 72, "u8": 72, "s4": 75, "u4": 75, "b1": 75, "bf16": 80, "tf32": 80,
          "f64": 80}


def seed_combinations():
    out = set()
    for shapes, by_matrix in SEED_BLOCKS:
        for shape in shapes:
            for matrix, types in by_matrix.items():
                out |= {(shape, matrix, t) for t in types}
    return out


def test_load_combinations_are_seed_plus_ptxas_extensions():
    loads = {f.key for f in spec.legal_combinations() if f.matrix != "d"}
    assert loads == seed_combinations() | PTXAS_EXTENSIONS
    ext = {f.key for f in spec.legal_combinations() if f.source == "ptxas extension"}
    assert ext == PTXAS_EXTENSIONS


def test_store_d_mirrors_seed_c():
    stores = {(s, t) for s, m, t in (f.key for f in spec.legal_combinations()) if m == "d"}
    assert stores == {(s, t) for s, m, t in seed_combinations() if m == "c"}


@pytest.mark.parametrize("shape,matrix,type_,count", [
    (s, m, t, n) for s, by in PTXAS_COUNTS.items() for m, ts in by.items() for t, n in ts.items()])
def test_register_counts_match_ptxas(shape, matrix, type_, count):
    assert spec.fragment(shape, matrix, type_).nregs == count
    if matrix == "c":
        assert spec.fragment(shape, "d", type_).nregs == count


def test_every_seed_fragment_has_a_measured_count():
    for shape, matrix, t in seed_combinations():
        assert t in PTXAS_COUNTS[shape][matrix], (shape, matrix, t)


@pytest.mark.parametrize("frag", spec.legal_combinations(include_extensions=False),
                         ids=lambda f: "-".join(f.key))
def test_register_classes_and_width(frag):
    assert set(frag.register_classes) == PTXAS_CLASSES[frag.type]
    assert frag.register_bits == (64 if frag.type == "f64" else 32)


@pytest.mark.parametrize("frag", spec.legal_combinations(), ids=lambda f: "-".join(f.key))
def test_layout_rules(frag):
    if frag.type in ("s4", "u4", "b1") and frag.matrix == "a":
        assert frag.layouts == ("row",)
    elif frag.type in ("s4", "u4", "b1") and frag.matrix == "b":
        assert frag.layouts == ("col",)
    else:
        assert set(frag.layouts) == {"row", "col"}


@pytest.mark.parametrize("frag", spec.legal_combinations(), ids=lambda f: "-".join(f.key))
def test_default_strides_and_fragment_bytes(frag):
    ar, ac, br, bc, cr, cc = DEFAULT_STRIDES[frag.shape]
    expected = {"a": (ar, ac), "b": (br, bc)}.get(frag.matrix, (cr, cc))
    assert (frag.default_stride("row"), frag.default_stride("col")) == expected
    if frag.source != "isa":
        return
    t = "s8" if frag.type == "u8" else "s4" if frag.type == "u4" else frag.type
    if frag.matrix in "ab":
        assert frag.fragment_bytes == F_AB[(t, frag.shape)]["ab".index(frag.matrix)]
    else:
        assert frag.fragment_bytes == F_CD[(t, frag.shape)]


def test_alignment_worked_example_from_manual():
    # ".a .row .m16n16k16 .f16: p multiple of 32 bytes and 2·stride multiple of 32"
    f = spec.fragment("m16n16k16", "a", "f16")
    assert f.address_alignment == 32
    assert f.stride_ok(16, "row") and f.stride_ok(32, "row")
    assert not f.stride_ok(24, "row")


@pytest.mark.parametrize("frag", spec.legal_combinations(), ids=lambda f: "-".join(f.key))
def test_gates(frag):
    t = frag.type
    if frag.matrix in "cd":  # the accumulator is gated like its A/B family
        t = {"f16": "f16", "f32": "f16", "s32": "s8" if frag.shape in F16_SHAPES else "s4",
             "f64": "f64"}[t]
        if frag.shape == "m16n16k8":
            t = "tf32"
        if frag.shape in ("m8n8k32", "m8n8k128"):  # incl. the .f32 ptxas extension (§A11)
            t = "s4"
    assert frag.gate.min_sm == MIN_SM[t]
    if t == "f16":
        assert frag.gate.min_ptx == ((6, 0) if frag.shape == "m16n16k16" else (6, 1))
    elif MIN_SM[t] == 80:
        assert frag.gate.min_ptx == (7, 0)
    else:
        assert frag.gate.min_ptx == (6, 3)


def test_aligned_rule_ptxas_b10():
    assert spec.aligned_rule((6, 2)) == "forbidden"
    assert spec.aligned_rule((6, 0)) == "forbidden"
    assert spec.aligned_rule((6, 3)) == "required"
    assert spec.aligned_rule((9, 0)) == "required"


def test_shared_cta_gate():
    assert spec.SHARED_CTA_GATE.min_ptx == (7, 8)
    assert "shared::cluster" not in spec.STATE_SPACES


# -- wmma.mma combinations, transcribed from spec/wmma.md §1 and §5 ---------------------------
def expected_mma():
    out = set()
    for s in F16_SHAPES:
        out |= {(s, "f16", "f16", c, d, None) for c, d in itertools.product(["f16", "f32"], repeat=2)}
        out |= {(s, t, t, "s32", "s32", None) for t in ("s8", "u8")}
        out.add((s, "bf16", "bf16", "f32", "f32", None))
    out.add(("m16n16k8", "tf32", "tf32", "f32", "f32", None))
    out.add(("m8n8k4", "f64", "f64", "f64", "f64", None))
    out |= {("m8n8k32", t, t, "s32", "s32", None) for t in ("s4", "u4")}
    out |= {("m8n8k128", "b1", "b1", "s32", "s32", op) for op in ("xor.popc", "and.popc")}
    return out


def test_mma_combinations():
    assert {m.key for m in spec.mma_combinations()} == expected_mma()


def test_mma_modifiers_and_gates():
    f64 = spec.mma("m8n8k4", "f64", "f64", "f64", "f64")
    assert set(f64.roundings) == {"rn", "rz", "rm", "rp"} and f64.roundings[0] == "rn"
    assert spec.mma("m8n8k128", "b1", "b1", "s32", "s32", "and.popc").gate == spec.Gate((7, 1), 80)
    assert spec.mma("m8n8k128", "b1", "b1", "s32", "s32", "xor.popc").gate == spec.Gate((6, 3), 75)
    for m in spec.mma_combinations():
        integer = m.atype in ("s8", "u8", "s4", "u4")
        assert m.satfinite == (integer or m.atype == "f16")
        if m.atype == "f16":
            assert m.satfinite_last_ptx == (6, 4)
        if m.atype in ("s4", "u4", "b1"):
            assert (m.alayouts, m.blayouts) == (("row",), ("col",))
    with pytest.raises(KeyError):
        spec.mma("m16n16k16", "s8", "u8", "s32", "s32")  # A and B types must match


def test_illegal_queries_raise_keyerror():
    with pytest.raises(KeyError, match="no wmma fragment"):
        spec.fragment("m16n16k8", "c", "f16")  # ptxas §5.3 builtin error: not legal
    assert not spec.is_legal("m8n8k32", "a", "s4", "col")
    assert spec.is_legal("m8n8k32", "a", "s4", "row")


def test_tables_are_consistent():
    """Every fragment splits over 32 lanes in 1/2/4/8 registers, its default strides meet its
    alignment rule, and every wmma.mma names fragments that exist."""
    spec.self_check()
