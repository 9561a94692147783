"""The fifth-generation tensor core instructions and their tensor memory (PTX ISA 9.7.16:
tcgen05.alloc, .dealloc, .relinquish_alloc_permit, .ld, .st, .wait, .cp, .shift, .mma, .mma.sp,
.commit, .fence) of the sm_100 family's architecture- and family-specific targets, measured
against ptxas 13.0.

The ISA names two instructions by a `::` suffix that is always written (`tcgen05.wait::ld`,
`tcgen05.fence::before_thread_sync`): each spelling is a record of its own here, as
`mma.sp::ordered_metadata` is. `tcgen05.mma.ws` (and `.ws.sp`) are forms of `tcgen05.mma`:
ptxas reads `.ws` as a modifier of it, and refuses `tcgen05.mma.sp.ws`.

Tensor memory addresses (`[taddr]`) are 32-bit registers: ptxas 13.0 refuses a 64-bit register,
a `.f32` register or a variable there (`addr:.u32` below; tcgen05.mma: `.b32` registers only),
and crashes on an immediate address.
"""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

# ptxas 13.0: the architecture- and family-specific targets of sm_100, sm_103 and sm_110
# (sm_101 is sm_110 before PTX ISA 9.0); sm_100, sm_120a and sm_90a refuse every tcgen05
_SPECIFIC = tuple(f"sm_{n}a" for n in (100, 101, 103, 110))
_FAMILY = tuple(f"sm_{n}f" for n in (100, 101, 103, 110))
_TCGEN05 = Gate((8, 6), 100, "tcgen05", "tcgen05: PTX ISA 8.6, sm_100a/sm_101a (and from PTX ISA 8.8 the "
                "sm_100f family, sm_103a; from 9.0 sm_110a).", only_targets=_SPECIFIC + _FAMILY)
# tcgen05.shift and `.kind::i8`: ptxas 13.0 refuses the family-specific targets; `.kind::i8`
# also sm_103a
_SHIFT = Gate((8, 6), 100, "tcgen05.shift", "tcgen05.shift: PTX ISA 8.6, sm_100a/sm_101a (ptxas 13.0: "
              "not the family-specific targets).", only_targets=_SPECIFIC)
_KIND_I8 = Gate((8, 6), 100, ".kind::i8", "tcgen05.mma .kind::i8: PTX ISA 8.6, sm_100a/sm_101a (ptxas "
                "13.0: also sm_110a; not sm_103a nor the family-specific targets).",
                only_targets=("sm_100a", "sm_101a", "sm_110a"))
# `.scale_vec::NX` (not `.block16/.block32`) and scale-input-d: ptxas 13.0 refuses them on the
# family-specific targets; scale-input-d also on sm_110a
_SCALE_VEC = {".scale_vec::1X": Gate((8, 6), 100, ".scale_vec::1X", "tcgen05.mma .scale_vec::1X: PTX ISA "
                                     "8.6, the architecture-specific targets (ptxas 13.0).", only_targets=_SPECIFIC),
              ".scale_vec::2X": Gate((8, 6), 100, ".scale_vec::2X", "tcgen05.mma .scale_vec::2X: PTX ISA "
                                     "8.6, the architecture-specific targets (ptxas 13.0).", only_targets=_SPECIFIC),
              ".scale_vec::4X": Gate((8, 7), 100, ".scale_vec::4X", "tcgen05.mma .scale_vec::4X: PTX ISA "
                                     "8.7, the architecture-specific targets (ptxas 13.0).", only_targets=_SPECIFIC)}
_SCALE_D = Gate((8, 6), 100, "scale-input-d", "tcgen05.mma scale-input-d: PTX ISA 8.6, sm_100a/sm_101a "
                "(ptxas 13.0: also sm_100f, sm_103a/f; not sm_110a/f).",
                only_targets=("sm_100a", "sm_100f", "sm_101a", "sm_101f", "sm_103a", "sm_103f"))
# sparse `.kind::mxf4` and `.kind::mxf4nvf4`: ptxas 13.0 refuses them on the family-specific
# targets ("Feature '.kind::mxf4 with .sp modifier' not supported")
_SPARSE_MXF4 = {".kind::mxf4": Gate((8, 6), 100, ".kind::mxf4 with .sp", "tcgen05.mma.sp .kind::mxf4: the "
                                    "architecture-specific targets (ptxas 13.0).", only_targets=_SPECIFIC),
                ".kind::mxf4nvf4": Gate((8, 7), 100, ".kind::mxf4nvf4 with .sp", "tcgen05.mma.sp "
                                        ".kind::mxf4nvf4: PTX ISA 8.7, the architecture-specific targets "
                                        "(ptxas 13.0).", only_targets=_SPECIFIC)}
_PTX87 = {".kind::mxf4nvf4": Gate((8, 7), None, ".kind::mxf4nvf4", "tcgen05.mma .kind::mxf4nvf4: PTX ISA 8.7.")}
_PTX88 = {v: Gate((8, 8), None, v, f"tcgen05.mma {v}: PTX ISA 8.8.") for v in (".block16", ".block32")}
# `.block_scale` without a vector size is `.block32` to ptxas 13.0 ("Feature '.block32'
# requires PTX ISA .version 8.8")
_DEFAULT_BLOCK32 = Gate((8, 8), None, ".block_scale without a vector size",
                        "tcgen05.mma .block_scale without .scale_vec::NX: .block32, PTX ISA 8.8.")
_LD_RED = Gate((8, 8), 100, "tcgen05.ld.red", "tcgen05.ld.red: PTX ISA 8.8, sm_103a/sm_110a and their "
               "families (ptxas 13.0).", only_targets=("sm_103a", "sm_103f", "sm_110a", "sm_110f"))

_CTA_GROUP = Group("cta_group", (".cta_group::1", ".cta_group::2"))
_SYNC = (Group("sync", (".sync",), repeatable=True), Group("aligned", (".aligned",)))
_B32 = Group("type", (".b32",))

# tcgen05.ld/st: registers per `.num` of each shape (ptxas 13.0 "Argument vector size mismatch";
# `.pack::16b`/`.unpack::16b` do not change the count); .16x128b stops at .x64, .16x256b at .x32
_NUMS = (".x1", ".x2", ".x4", ".x8", ".x16", ".x32", ".x64", ".x128")
REGISTERS_PER_NUM = {".16x64b": 1, ".32x32b": 1, ".16x32bx2": 1, ".16x128b": 2, ".16x256b": 4}
SHAPES = tuple(REGISTERS_PER_NUM)


def registers(shape: str, num: str) -> int | None:
    """How many 32-bit registers tcgen05.ld/st move for a shape and `.num` (None: no such pair)."""
    n = REGISTERS_PER_NUM[shape] * int(num[2:])
    return n if n <= 128 else None


_ROLES: dict[str, str] = {}


def _vector(name: str, count: int, write: bool = False) -> str:
    """A brace vector role of `count` 32-bit registers, defined on first use."""
    key = f"{name} ({count} register{'s' if count > 1 else ''})"
    _ROLES[key] = f"{'=' if write else ''}vec:b32*{count}"
    return key


def _ld_st_forms(store: bool) -> tuple[Form, ...]:
    """One form per shape and `.num` (the vector's length), with and without `.aligned` (ptxas
    13.0 requires `.sync` only); .16x32bx2 takes the immediate half-split offset."""
    out = []
    pack = "{.unpack}" if store else "{.pack}"
    for shape in SHAPES:
        for num in _NUMS:
            n = registers(shape, num)
            if n is None:
                continue
            r = _vector("r", n, write=not store)
            split = ", split" if shape == ".16x32bx2" else ""
            ops = f"taddr{split}, {r}" if store else f"{r}, taddr{split}"
            where = {"shape": (shape,), "num": (num,)}
            out.append(Form(f".sync.aligned.shape.num{pack}.b32", ops, where=where))
            out.append(Form(f".sync.shape.num{pack}.b32", ops, where=where,
                            beyond_isa="the PTX ISA writes `.sync.aligned`"))
    return tuple(out)


def _ld_red_forms() -> tuple[Form, ...]:
    """tcgen05.ld.red (.32x32b and .16x32bx2, .x2 and up): `.min/.max` of `.f32` (with `.abs`,
    `.NaN`) or of `.u32/.s32`; as tcgen05.ld, ptxas 13.0 requires `.sync` only."""
    out = []
    for shape in (".32x32b", ".16x32bx2"):
        for num in _NUMS[1:]:
            r = _vector("r", registers(shape, num), write=True)
            split = ", split" if shape == ".16x32bx2" else ""
            where = {"shape": (shape,), "num": (num,)}
            ops = f"{r}, redval, taddr{split}"
            for sync, beyond in ((".sync.aligned", ""), (".sync", "the PTX ISA writes `.sync.aligned`")):
                out.append(Form(f".red{sync}.shape.num.redop{{.abs}}{{.nan}}.f32", ops, gate=_LD_RED, where=where,
                                beyond_isa=beyond))
                out.append(Form(f".red{sync}.shape.num.redop.itype", ops, gate=_LD_RED, where=where,
                                beyond_isa=beyond))
    return tuple(out)


_MMA_KINDS = (".kind::f16", ".kind::tf32", ".kind::f8f6f4", ".kind::i8")


def _scaled(template: str, operands: str, where: dict, sparse: bool, lanes: bool) -> tuple[Form, ...]:
    """The forms with scale-input-d: .kind::f16 and .kind::tf32 as the ISA has them, and
    .kind::i8, which ptxas 13.0 also takes (not with a lane vector on tcgen05.mma.sp)."""
    out = (Form(template, operands, where={**where, "kind": (".kind::f16", ".kind::tf32")}, gate=_SCALE_D),)
    if not (sparse and lanes):
        out += (Form(template, operands, where={**where, "kind": (".kind::i8",)}, gate=_SCALE_D,
                     beyond_isa="the PTX ISA takes scale-input-d with .kind::f16 and .kind::tf32 only"),)
    return out
_SCALED_KINDS = (".kind::mxf8f6f4", ".kind::mxf4", ".kind::mxf4nvf4")
# the vector sizes ptxas 13.0 takes with each block-scaled kind
_VECTOR_SIZES = {".kind::mxf8f6f4": (".scale_vec::1X", ".block32"), ".kind::mxf4": (".scale_vec::2X", ".block32"),
                 ".kind::mxf4nvf4": (".scale_vec::2X", ".scale_vec::4X", ".block16", ".block32")}


def _mma_forms(sparse: bool) -> tuple[Form, ...]:
    """tcgen05.mma (or .sp): A from a descriptor or from tensor memory (`.ashift` with the
    latter only, and not with a `::fill`/`::use` collector usage); the disable-output-lane vector (4 registers
    for .cta_group::1, 8 for ::2) and scale-input-d optional; block-scaled kinds with the
    scale-factor addresses instead; `.ws` (cta_group::1 only) with the `::b0`..`::b3`
    collector buffers and an optional zero-column mask, no lane vector nor scale."""
    out = []
    meta = ", meta" if sparse else ""
    lead = ".sp" if sparse else ""
    for a in ("adesc", "atmem"):
        shifts = ("", ".ashift") if a == "atmem" else ("",)
        for shift in shifts:
            # ptxas 13.0 refuses `.ashift` with `::fill` and `::use`
            collector = "{.collector}"
            ca = {"collector": _COLLECT_A if not shift else _COLLECT_A[2:]}
            # plain kinds
            for kinds, scaled in ((_MMA_KINDS, False), (_SCALED_KINDS, True)):
                if scaled:
                    if shift:                 # ptxas 13.0: no `.ashift` with `.block_scale`
                        continue
                    for kind in _SCALED_KINDS:
                        w = {"kind": (kind,), **ca}
                        base = f"{lead}.cta_group.kind.block_scale{collector}{shift}"
                        ops = f"d, {a}, bdesc{meta}, idesc, sa, sb, en"
                        out.append(Form(base + ".scale_vec", ops, where={**w, "scale_vec": _VECTOR_SIZES[kind]}))
                        if kind != ".kind::mxf4nvf4":
                            out.append(Form(base, ops, where=w, gate=_DEFAULT_BLOCK32))
                    continue
                w = {"kind": kinds, **ca}
                base = f"{lead}.cta_group.kind{collector}{shift}"
                ops = f"d, {a}, bdesc{meta}, idesc"
                out.append(Form(base, f"{ops}, en", where=w))
                out.extend(_scaled(base, f"{ops}, en, scale", w, sparse, lanes=False))
                for group, lanes in ((".cta_group::1", "lanes4"), (".cta_group::2", "lanes8")):
                    wg = {**w, "cta_group": (group,)}
                    out.append(Form(base, f"{ops}, {lanes}, en", where=wg))
                    out.extend(_scaled(base, f"{ops}, {lanes}, en, scale", wg, sparse, lanes=True))
        # .ws: cta_group::1 only, no .ashift, no block scaling
        ws = f".ws{lead}.cta_group::1.kind{{.collector}}"
        w = {"kind": _MMA_KINDS, "collector": _COLLECT_B}
        ops = f"d, {a}, bdesc{meta}, idesc, en"
        out.append(Form(ws, ops, where=w))
        out.append(Form(ws, f"{ops}, zcm", where=w))
    return tuple(out)


_OPS = (".fill", ".use", ".lastuse", ".discard")
_COLLECT_A = tuple(f".collector::a::{op[1:]}" for op in _OPS)
_COLLECT_B = tuple(f".collector::b{i}::{op[1:]}" for i in range(4) for op in _OPS)


def _mma_groups(ws_sparse: bool) -> tuple[Group, ...]:
    """The vocabulary of tcgen05.mma (`ws_sparse`: with `.ws` and the `.sp` of `.ws.sp`) or of
    tcgen05.mma.sp (which ptxas 13.0 does not take `.ws` after)."""
    return ((Group("ws", (".ws",)), Group("sp", (".sp",))) if ws_sparse else ()) + (
        _CTA_GROUP, Group("kind", _MMA_KINDS + _SCALED_KINDS), Group("block_scale", (".block_scale",)),
        Group("scale_vec", (".scale_vec::1X", ".scale_vec::2X", ".scale_vec::4X", ".block16", ".block32")),
        Group("collector", _COLLECT_A + _COLLECT_B), Group("ashift", (".ashift",)))


_MMA_OPERANDS = {
    # tensor memory addresses of tcgen05.mma: `.b32` registers only (ptxas 13.0 refuses .u32,
    # .s32 and .f16x2 here, which tcgen05.ld/st/cp/shift take)
    "d": "addr:raw32", "atmem": "addr:raw32", "sa": "addr:raw32", "sb": "addr:raw32", "meta": "addr:raw32",
    # matrix descriptors: 64-bit integer registers or immediates (ptxas 13.0 refuses .f64)
    "adesc": "reg|imm:int64", "bdesc": "reg|imm:int64", "zcm": "reg|imm:int64",
    # the instruction descriptor: a 32-bit integer register or an immediate (not .f32 nor .f16x2)
    "idesc": "reg|imm:int32",
    "en": "npred|imm", "scale": "imm=" + "|".join(str(i) for i in range(16)),
    "lanes4": "vec:b32*4", "lanes8": "vec:b32*8",
}


def _mma_records() -> tuple[InstructionSpec, ...]:
    dense = _mma_forms(False)
    ws_sparse = tuple(f for f in _mma_forms(True) if f.template.startswith(".ws"))
    sparse = tuple(f for f in _mma_forms(True) if not f.template.startswith(".ws"))
    gates = {".kind::i8": _KIND_I8, **_PTX87, **_PTX88, **_SCALE_VEC}
    return (
        InstructionSpec("tcgen05.mma", "PTX ISA 9.7.16.10.9 (tcgen05.mma)", _mma_groups(True),
                        forms=dense + ws_sparse, operands=_MMA_OPERANDS, gate=_TCGEN05, gates=gates),
        InstructionSpec("tcgen05.mma.sp", "PTX ISA 9.7.16.10.9 (tcgen05.mma.sp)", _mma_groups(False),
                        forms=tuple(_strip_sp(f) for f in sparse), operands=_MMA_OPERANDS, gate=_TCGEN05,
                        gates={**gates, **_SPARSE_MXF4}),
    )


def _strip_sp(form: Form) -> Form:
    """A sparse form of tcgen05.mma as a form of the tcgen05.mma.sp record (its name holds `.sp`)."""
    return Form(form.template.replace(".sp", "", 1), form.operands, gate=form.gate, where=form.where,
                beyond_isa=form.beyond_isa)


def _cp_forms() -> tuple[Form, ...]:
    """tcgen05.cp per shape: .64x128b takes a `.warpx2::` multicast, .32x128b `.warpx4`, the
    others none (ptxas 13.0: "Modifier '.warptype' require[d]"); each with or without the
    decompression pair, written destination format first (ptxas 13.0 refuses the other order
    and either format alone)."""
    out = []
    for shape, multicast in ((".128x256b", ""), (".4x256b", ""), (".128x128b", ""),
                             (".64x128b", (".warpx2::02_13", ".warpx2::01_23")), (".32x128b", (".warpx4",))):
        where = {"shape": (shape,), **({"multicast": multicast} if multicast else {})}
        base = ".cta_group.shape" + (".multicast" if multicast else "")
        out.append(Form(base, "taddr, sdesc", where=where))
        out.append(Form(base + ".dst_fmt.src_fmt", "taddr, sdesc", where=where))
    return tuple(out)


_CP_FORMS = _cp_forms()
_LD_FORMS = _ld_st_forms(False) + _ld_red_forms()
_ST_FORMS = _ld_st_forms(True)
_MMA_RECORDS = _mma_records()
_TMEM = "addr:.u32"

RECORDS = (
    InstructionSpec("tcgen05.alloc", "PTX ISA 9.7.16.7.1 (tcgen05.alloc)",
                    (_CTA_GROUP, *_SYNC, Group("space", (".shared::cta",)), _B32),
                    forms=(Form(".cta_group.sync.aligned{.space}.b32", "dst, ncols"),),
                    # the number of columns: a power of two in 32..512 (ptxas 13.0 checks a constant)
                    operands={"dst": "addr", "ncols": "reg|imm=32|64|128|256|512:int32"}, gate=_TCGEN05),
    InstructionSpec("tcgen05.dealloc", "PTX ISA 9.7.16.7.1 (tcgen05.dealloc)", (_CTA_GROUP, *_SYNC, _B32),
                    forms=(Form(".cta_group.sync.aligned.b32", "taddr, ncols"),),
                    operands={"taddr": "reg|imm:int32", "ncols": "reg|imm%32:int32"}, gate=_TCGEN05),
    InstructionSpec("tcgen05.relinquish_alloc_permit", "PTX ISA 9.7.16.7.1 (tcgen05.relinquish_alloc_permit)",
                    (_CTA_GROUP, *_SYNC), forms=(Form(".cta_group.sync.aligned"),), gate=_TCGEN05),
    InstructionSpec("tcgen05.ld", "PTX ISA 9.7.16.8.3 (tcgen05.ld)", (
        Group("red", (".red",)), *_SYNC, Group("shape", SHAPES), Group("num", _NUMS), Group("pack", (".pack::16b",)),
        Group("redop", (".min", ".max")), Group("abs", (".abs",)), Group("nan", (".NaN",), repeatable=True),
        Group("itype", (".u32", ".s32")), Group("type", (".b32", ".f32")),
    ), forms=_LD_FORMS, operands={"taddr": _TMEM, "split": "imm:int32", "redval": "reg:b32", **_ROLES},
        gate=_TCGEN05),
    InstructionSpec("tcgen05.st", "PTX ISA 9.7.16.8.4 (tcgen05.st)", (
        *_SYNC, Group("shape", SHAPES), Group("num", _NUMS), Group("unpack", (".unpack::16b",)), _B32,
    ), forms=_ST_FORMS, operands={"taddr": _TMEM, "split": "imm:int32", **_ROLES}, gate=_TCGEN05),
    InstructionSpec("tcgen05.wait::ld", "PTX ISA 9.7.16.8.5 (tcgen05.wait)", _SYNC,
                    forms=(Form(".sync.aligned"),), gate=_TCGEN05),
    InstructionSpec("tcgen05.wait::st", "PTX ISA 9.7.16.8.5 (tcgen05.wait)", _SYNC,
                    forms=(Form(".sync.aligned"),), gate=_TCGEN05),
    InstructionSpec("tcgen05.cp", "PTX ISA 9.7.16.9.1 (tcgen05.cp)", (
        _CTA_GROUP, Group("shape", (".128x256b", ".4x256b", ".128x128b", ".64x128b", ".32x128b")),
        Group("multicast", (".warpx2::02_13", ".warpx2::01_23", ".warpx4")),
        Group("dst_fmt", (".b8x16",)), Group("src_fmt", (".b6x16_p32", ".b4x16_p64")),
    ), forms=_CP_FORMS, operands={"taddr": _TMEM, "sdesc": "reg|imm:int64"}, gate=_TCGEN05),
    InstructionSpec("tcgen05.shift", "PTX ISA 9.7.16.9.2 (tcgen05.shift)", (_CTA_GROUP, Group("down", (".down",))),
                    forms=(Form(".cta_group.down", "taddr"),), operands={"taddr": _TMEM}, gate=_SHIFT),
    *_MMA_RECORDS,
    InstructionSpec("tcgen05.commit", "PTX ISA 9.7.16.11.1 (tcgen05.commit)", (
        _CTA_GROUP, Group("completion", (".mbarrier::arrive::one",)), Group("space", (".shared::cluster",)),
        Group("multicast", (".multicast::cluster",)), Group("type", (".b64",)),
    ), forms=(
        Form(".cta_group.completion{.space}.b64", "mbar"),
        # the CTA mask: a 16-bit integer register (ptxas 13.0 refuses an immediate)
        Form(".cta_group.completion{.space}.multicast.b64", "mbar, mask"),
    ), operands={"mbar": "addr", "mask": "reg:int16"}, gate=_TCGEN05),
    InstructionSpec("tcgen05.fence::before_thread_sync", "PTX ISA 9.7.16.11.2 (tcgen05.fence)", (),
                    forms=(Form(""),), gate=_TCGEN05),
    InstructionSpec("tcgen05.fence::after_thread_sync", "PTX ISA 9.7.16.11.2 (tcgen05.fence)", (),
                    forms=(Form(""),), gate=_TCGEN05),
)
