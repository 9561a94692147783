"""Texture instructions (PTX ISA 9.7.10: tex, tld4, txq, istypep), measured against ptxas 13.0.

A texture is read through a texture address `[tex, {c1, ...}]` (unified mode) or
`[tex, sampler, {c1, ...}]` (`.target ... texmode_independent`): the texture and sampler are
`.texref`/`.samplerref` variables or `.u64` handles, the coordinates a vector whose size the
geometry fixes (`COORDINATES`). ptxas 13.0 takes a larger vector than the geometry needs (1, 2 or
4 elements), never a smaller one ("Operand vector size doesn't match geometry"); gradients have
exactly the geometry's size, vector offsets at least its size (`_trailing` has which trailing
operands ptxas takes). The lod has the coordinates' type, gradients and the depth-compare value
are `.f32`, offsets `.s32`.
"""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

GEOMETRIES = (".1d", ".2d", ".3d", ".a1d", ".a2d", ".cube", ".acube", ".2dms", ".a2dms")
# vector sizes (1, 2 or 4 elements) ptxas 13.0 takes for the coordinates of each geometry
COORDINATES = {".1d": (1, 2, 4), ".2d": (2, 4), ".3d": (4,), ".a1d": (2, 4), ".a2d": (4,),
               ".cube": (4,), ".acube": (4,), ".2dms": (4,), ".a2dms": (4,)}
# the sizes of the gradient vectors of `tex.grad` (exactly the geometry's dimensions, 3 as 4)
_GRADIENTS = {".1d": (1,), ".a1d": (1,), ".2d": (2,), ".a2d": (2,), ".3d": (4,), ".cube": (4,),
              ".acube": (4,)}
# the sizes of the offset vector (a scalar register for the one-dimensional geometries)
_OFFSETS = {".1d": (1, 2, 4), ".a1d": (1, 2, 4), ".2d": (2, 4), ".a2d": (2, 4), ".2dms": (2, 4),
            ".a2dms": (2, 4), ".3d": (4,)}
# the array index, the first coordinate of an array geometry: a 32-bit integer ("Array index in
# the 'tex' instruction has unexpected type. Expecting type .u32"; .s32 and .b32 pass too)
ARRAY_INDEX = dict.fromkeys((".a1d", ".a2d", ".acube", ".a2dms"), "int32")
SIZES = {"coords": ("geom", COORDINATES, ARRAY_INDEX), "grads": ("geom", _GRADIENTS),
         "offsets": ("geom", _OFFSETS)}

# the PTX ISA version and target of each feature, as ptxas 13.0 names them ("Feature 'cubemap
# textures' requires PTX ISA .version 3.0 or later", "... requires .target sm_30 or higher")
_MIPMAPS = Gate((3, 1), None, "mipmaps", "tex.base, tex.level, tex.grad: PTX ISA 3.1.")
_HALF = Gate((4, 2), 53, "f16 texture results", "tex .f16 and .f16x2 results: PTX ISA 4.2, sm_53.")
_TEX_GATES = {
    ".a1d": Gate((2, 3), None, "array geometry", "Array geometries: PTX ISA 2.3."),
    ".a2d": Gate((2, 3), None, "array geometry", "Array geometries: PTX ISA 2.3."),
    ".cube": Gate((3, 0), None, "cubemap textures", "Cubemap geometries: PTX ISA 3.0."),
    ".acube": Gate((3, 0), None, "cubemap textures", "Cubemap geometries: PTX ISA 3.0."),
    ".2dms": Gate((3, 2), 30, "multi-sample textures", "Multi-sample geometries: PTX ISA 3.2, sm_30."),
    ".a2dms": Gate((3, 2), 30, "multi-sample textures", "Multi-sample geometries: PTX ISA 3.2, sm_30."),
    ".base": _MIPMAPS, ".level": _MIPMAPS, ".grad": _MIPMAPS, ".f16": _HALF, ".f16x2": _HALF,
}
# an offset or a depth-compare value after the coordinates (tex and tld4)
_TRAILING = Gate((4, 3), 30, "offset operand", "tex/tld4 offset and depth-compare operands: PTX ISA 4.3, sm_30.")
_TLD4_GEOMETRY = Gate((4, 3), 30, "tld4 geometry", "tld4 with .a2d, .cube, .acube: PTX ISA 4.3, sm_30.")

_PLAIN = (".1d", ".2d", ".a1d", ".a2d")
_CUBE = (".cube", ".acube")
_MULTISAMPLE = (".2dms", ".a2dms")
_DTYPES = (".u32", ".s32", ".f16", ".f32")

_TEX_OPERANDS = {
    "d": "=vec|pair:dtype*vec",           # {r, g, b, a} (`.v4`) or two .f16x2 (`.v2`), `|p` optional
    "a": "tex:ctype*coords",              # [texture{, sampler}, {coordinates}]
    "lod": "reg|imm:ctype", "dPdx": "vec:.f32*grads", "dPdy": "vec:.f32*grads",
    # the offset: a vector of the geometry's size, or a scalar .s32 register or immediate
    "e": "vec:int32*offsets", "es": "reg|imm:int32",
    # the depth-compare value: `.f32`, with `.f32` coordinates only; a lone integer immediate
    # passes too
    "f": "reg|imm:.f32", "fi": "imm:int32",
}


def _trailing(geoms: tuple[str, ...], ctype: str, mip: str, extra: str) -> tuple[str, ...]:
    """The operand lists of one geometry class, as ptxas 13.0 reads them: after the address (and
    the lod or gradients) an offset `e` (a vector of the geometry's size; none on cube maps,
    "Illegal modifier '.cube'"), or a scalar offset `es`; with `.f32` coordinates a
    depth-compare value `f` (none on `.3d`, "Illegal modifier '.3d'"), alone or after an
    offset."""
    head = f"d, a{extra}"
    lists = [head, f"{head}, es"] + ([f"{head}, e"] if geoms != _CUBE else [])
    if ctype == ".f32" and geoms != (".3d",):
        lists += [f"{head}, f", f"{head}, fi"]
        if geoms != _CUBE:
            lists.append(f"{head}, e, f")
        lists.append(f"{head}, es, f")
    return tuple(lists)


def _sampled(mips: tuple[str, ...], outputs, classes) -> tuple[Form, ...]:
    """tex (or tld4) forms: each level-of-detail mode over each geometry class and coordinate
    type, with the offset and depth-compare operands (`_trailing`)."""
    out = []
    for mip in mips:
        extra = {"": "", ".base": "", ".level": ", lod", ".grad": ", dPdx, dPdy"}[mip]
        for geoms, ctypes in classes:
            if mip in (".level", ".grad") and geoms is _MULTISAMPLE:
                continue        # ptxas 13.0: "Illegal modifier 'Multi-sample geometry'"
            for ctype in ctypes:
                for vec, dtypes in outputs:
                    where = {"geom": geoms, "ctype": (ctype,), "dtype": dtypes}
                    head = f"{mip}.geom{vec}.dtype.ctype"
                    out += [Form(head, ops, where=where, gate=_TRAILING if ops != f"d, a{extra}" else None)
                            for ops in _trailing(geoms, ctype, mip, extra)]
    return tuple(out)


_TEX_CLASSES = ((_PLAIN, (".s32", ".f32")), ((".3d",), (".s32", ".f32")), (_CUBE, (".f32",)),
                (_MULTISAMPLE, (".s32",)))
_TEX = InstructionSpec("tex", "PTX ISA 9.7.10.3 (tex)", (
    Group("mip", (".base", ".level", ".grad")), Group("geom", GEOMETRIES), Group("vec", (".v2", ".v4")),
    Group("dtype", _DTYPES + (".f16x2",)), Group("ctype", (".s32", ".f32")),
), forms=_sampled(("", ".base", ".level", ".grad"), ((".v4", _DTYPES), (".v2", (".f16x2",))), _TEX_CLASSES),
    operands=_TEX_OPERANDS, sizes=SIZES, gates=_TEX_GATES)


_TLD4 = InstructionSpec("tld4", "PTX ISA 9.7.10.4 (tld4)", (
    Group("comp", (".r", ".g", ".b", ".a")), Group("geom", (".2d", ".a2d", ".cube", ".acube")),
    Group("vec", (".v4",)), Group("dtype", (".u32", ".s32", ".f32")), Group("ctype", (".f32",)),
), forms=tuple(Form(".comp" + f.template, f.operands, where=f.where, gate=f.gate) for f in _sampled(
    ("",), ((".v4", (".u32", ".s32", ".f32")),), (((".2d", ".a2d"), (".f32",)), (_CUBE, (".f32",))))),
    operands=_TEX_OPERANDS, sizes=SIZES, gates=dict.fromkeys((".a2d", ".cube", ".acube"), _TLD4_GEOMETRY))

# txq: what a texture or sampler is; `.level` queries of one mipmap level
_TEXTURE_QUERIES = (".width", ".height", ".depth", ".channel_data_type", ".channel_order",
                    ".normalized_coords", ".array_size", ".num_mipmap_levels", ".num_samples")
_SAMPLER_QUERIES = (".force_unnormalized_coords", ".filter_mode", ".addr_mode_0", ".addr_mode_1",
                    ".addr_mode_2")
_TXQ = InstructionSpec("txq", "PTX ISA 9.7.10.5 (txq)", (
    Group("level", (".level",)), Group("query", _TEXTURE_QUERIES + _SAMPLER_QUERIES), Group("type", (".b32",)),
), forms=(
    Form(".query.b32", "d, a", where={"query": _TEXTURE_QUERIES}),
    # ptxas 13.0: "Illegal query modifier for instruction 'txq.level'" beyond the three sizes
    Form(".level.query.b32", "d, a, lod", where={"query": (".width", ".height", ".depth")}),
    # a sampler's state: of a sampler, or of a texture's own sampler in unified mode, but
    # `.force_unnormalized_coords` of a sampler only ("Argument 1 of instruction 'txq':
    # .samplerref expected")
    Form(".query.b32", "d, ts", where={"query": _SAMPLER_QUERIES[1:]}),
    Form(".force_unnormalized_coords.b32", "d, s"),
), operands={"d": "=reg:.b32", "a": "tex", "ts": "tex:.texref|.samplerref", "s": "tex:.samplerref",
             "lod": "reg|imm:int32"},
    gates={".level": Gate((4, 3), 30, "txq.level", "txq.level: PTX ISA 4.3, sm_30."),
           ".num_mipmap_levels": Gate((4, 1), None, "num_mipmap_levels", ".num_mipmap_levels: PTX ISA 4.1."),
           ".array_size": Gate((4, 1), None, "array_size", ".array_size: PTX ISA 4.1."),
           ".num_samples": Gate((4, 1), 30, "num_samples", ".num_samples: PTX ISA 4.1, sm_30.")})

_ISTYPEP = InstructionSpec("istypep", "PTX ISA 9.7.10.6 (istypep)", (
    Group("type", (".texref", ".samplerref", ".surfref")),
), forms=(Form(".type", "p, a"),),
    # ptxas 13.0 takes a .u64 handle register, not the variable itself ("Arguments mismatch"); it
    # takes a constant too, which ptxld refuses (docs/divergences.md)
    operands={"p": "=pred", "a": "reg:.u64"}, gate=Gate((4, 0), 30, "istypep", "istypep: PTX ISA 4.0, sm_30."))

RECORDS = (_TEX, _TLD4, _TXQ, _ISTYPEP)
