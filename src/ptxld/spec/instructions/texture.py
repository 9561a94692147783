"""Texture instructions (PTX ISA 9.7.10: tex, tld4, txq, istypep), measured against ptxas 13.0.

A texture is read through a texture address `[tex, {c1, ...}]` (unified mode) or
`[tex, sampler, {c1, ...}]` (`.target ... texmode_independent`): the texture and sampler are
`.texref`/`.samplerref` variables or `.u64` handles, the coordinates a vector whose size the
geometry fixes (`COORDINATES`). ptxas 13.0 takes a larger vector than the geometry needs (1, 2 or
4 elements), never a smaller one ("Operand vector size doesn't match geometry"); gradients have
exactly the geometry's size, offsets at least its size and none on cube maps. The lod, the
depth-compare value and the gradients have the coordinates' type; offsets are `.s32`.
"""
from __future__ import annotations

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
SIZES = {"coords": ("geom", COORDINATES), "grads": ("geom", _GRADIENTS), "offsets": ("geom", _OFFSETS)}

_PLAIN = (".1d", ".2d", ".3d", ".a1d", ".a2d")
_CUBE = (".cube", ".acube")
_MULTISAMPLE = (".2dms", ".a2dms")
_DTYPES = (".u32", ".s32", ".f16", ".f32")

_TEX_OPERANDS = {
    "d": "=vec|pair:dtype*vec",           # {r, g, b, a} (`.v4`) or two .f16x2 (`.v2`), `|p` optional
    "a": "tex:ctype*coords",              # [texture{, sampler}, {coordinates}]
    "lod": "reg|imm:ctype", "dPdx": "vec:ctype*grads", "dPdy": "vec:ctype*grads",
    "e": "vec|reg:.s32*offsets", "f": "reg|imm:ctype",
}


def _sampled(mips: tuple[str, ...], outputs) -> tuple[Form, ...]:
    """tex (or tld4) forms: each level-of-detail mode over each geometry class, with the offset
    and depth-compare operands (no offset on cube maps)."""
    out = []
    for mip in mips:
        extra = {"": "", ".base": "", ".level": ", lod", ".grad": ", dPdx, dPdy"}[mip]
        for geoms, ctypes in ((_PLAIN, (".s32", ".f32")), (_CUBE, (".f32",)), (_MULTISAMPLE, (".s32",))):
            if mip in (".level", ".grad") and geoms is _MULTISAMPLE:
                continue        # ptxas 13.0: "Illegal modifier 'Multi-sample geometry'"
            for vec, dtypes in outputs:
                where = {"geom": geoms, "ctype": ctypes, "dtype": dtypes}
                head = f"{mip}.geom{vec}.dtype.ctype"
                if geoms is _CUBE:
                    out.append(Form(head, f"d, a{extra}{{, f}}", where=where))
                else:
                    out.append(Form(head, f"d, a{extra}{{, e}}{{, f}}", where=where))
                    out.append(Form(head, f"d, a{extra}, f", where=where))
    return tuple(out)


_TEX = InstructionSpec("tex", "PTX ISA 9.7.10.3 (tex)", (
    Group("mip", (".base", ".level", ".grad")), Group("geom", GEOMETRIES), Group("vec", (".v2", ".v4")),
    Group("dtype", _DTYPES + (".f16x2",)), Group("ctype", (".s32", ".f32")),
), forms=_sampled(("", ".base", ".level", ".grad"), ((".v4", _DTYPES), (".v2", (".f16x2",)))),
    operands=_TEX_OPERANDS, sizes=SIZES)


def _tld4_forms() -> tuple[Form, ...]:
    """tld4: the 2d, a2d, cube and acube geometries, `.f32` coordinates, 32-bit results."""
    where = {"geom": (".2d", ".a2d"), "dtype": (".u32", ".s32", ".f32")}
    cube = {"geom": _CUBE, "dtype": (".u32", ".s32", ".f32")}
    head = ".comp.geom.v4.dtype.f32"
    return (Form(head, "d, a{, e}{, f}", where=where), Form(head, "d, a, f", where=where),
            Form(head, "d, a{, f}", where=cube))


_TLD4 = InstructionSpec("tld4", "PTX ISA 9.7.10.4 (tld4)", (
    Group("comp", (".r", ".g", ".b", ".a")), Group("geom", (".2d", ".a2d", ".cube", ".acube")),
    Group("vec", (".v4",)), Group("dtype", (".u32", ".s32", ".f32")), Group("ctype", (".f32",)),
), forms=_tld4_forms(), operands=_TEX_OPERANDS, sizes=SIZES)

# txq: what a texture or sampler is; `.level` queries of one mipmap level
_TEXTURE_QUERIES = (".width", ".height", ".depth", ".channel_data_type", ".channel_order",
                    ".normalized_coords", ".array_size", ".num_mipmap_levels", ".num_samples")
_SAMPLER_QUERIES = (".force_unnormalized_coords", ".filter_mode", ".addr_mode_0", ".addr_mode_1",
                    ".addr_mode_2")
_TXQ = InstructionSpec("txq", "PTX ISA 9.7.10.5 (txq)", (
    Group("level", (".level",)), Group("query", _TEXTURE_QUERIES + _SAMPLER_QUERIES), Group("type", (".b32",)),
), forms=(
    Form(".query.b32", "d, a"),
    # ptxas 13.0: "Illegal query modifier for instruction 'txq.level'" beyond the three sizes
    Form(".level.query.b32", "d, a, lod", where={"query": (".width", ".height", ".depth")}),
), operands={"d": "=reg:.b32", "a": "tex", "lod": "reg|imm:.s32"})

_ISTYPEP = InstructionSpec("istypep", "PTX ISA 9.7.10.6 (istypep)", (
    Group("type", (".texref", ".samplerref", ".surfref")),
), forms=(Form(".type", "p, a"),),
    # ptxas 13.0 takes a .u64 handle register only, not the variable itself ("Arguments mismatch")
    operands={"p": "=pred", "a": "reg:.u64"})

RECORDS = (_TEX, _TLD4, _TXQ, _ISTYPEP)
