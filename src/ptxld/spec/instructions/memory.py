"""Stores, atomics and reductions (PTX ISA 9.7.9.10 st, 9.7.13.5 atom, 9.7.13.6 red), measured against ptxas 13.0: which types each atomic operation
takes ("Operation .add requires .u32 or .s32 or .u64 ..."), `.noftz` required on 16-bit float
atomics, `.min/.max` on 16-bit floats only as vectors, the cache policy operand exactly when
`.L2::cache_hint` is written, 128 bits at most per vector (256 on sm_100 .global stores).
The load family keeps its own tables (spec/ld.py)."""
from __future__ import annotations

from ..gates import Gate
from ..isa import Form, Group, InstructionSpec

_ORDER = Gate((6, 0), 70, "memory order and scope", "`.sem` and `.scope` qualifiers: PTX ISA 6.0, sm_70.")
_GATES = {
    ".weak": _ORDER, ".relaxed": _ORDER, ".release": _ORDER, ".acquire": _ORDER, ".acq_rel": _ORDER,
    ".cta": _ORDER, ".gpu": _ORDER, ".sys": _ORDER,
    ".cluster": Gate((7, 8), 90, ".cluster scope", "`.cluster` scope: PTX ISA 7.8, sm_90."),
    ".shared::cta": Gate((7, 8), None, "::cta", "`.shared::cta`: PTX ISA 7.8."),
    ".shared::cluster": Gate((7, 8), 90, "::cluster", "`.shared::cluster`: PTX ISA 7.8, sm_90."),
    ".param::func": Gate((8, 3), None, "::func", "`.param::func`: PTX ISA 8.3."),
    ".L2::cache_hint": Gate((7, 4), 80, "cache_hint", "`.L2::cache_hint`: PTX ISA 7.4, sm_80."),
    ".b128": Gate((8, 3), 70, ".b128", "`.b128`: PTX ISA 8.3, sm_70."),
    ".mmio": Gate((8, 2), 70, ".mmio", "`.mmio`: PTX ISA 8.2, sm_70."),
}
for _v in (".L1::evict_normal", ".L1::evict_unchanged", ".L1::evict_first", ".L1::evict_last",
           ".L1::no_allocate"):
    _GATES[_v] = Gate((7, 4), 70, "L1 eviction priority", "`.level::eviction_priority`: PTX ISA 7.4, sm_70.")

_SCOPE = Group("scope", (".cta", ".cluster", ".gpu", ".sys"))
_HINT = Group("hint", (".L2::cache_hint",))
_L1 = (".L1::evict_normal", ".L1::evict_unchanged", ".L1::evict_first", ".L1::evict_last",
       ".L1::no_allocate")
_ST_TYPES = (".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16",
             ".s32", ".s64", ".f32", ".f64")
_ST_SPACES = (".global", ".local", ".param", ".param::func", ".shared", ".shared::cta", ".shared::cluster")
_WIDE = Gate((8, 8), 100, "256-bit store", "`.v8.b32`/`.v4.b64` stores: PTX ISA 8.8, sm_100, .global.")
# ptxas 13.0: "Feature '.b128 with .sys' requires PTX ISA .version 8.4 or later"
_B128_SYS_STORE = Gate((8, 4), 70, ".b128 with .sys", "`.b128` stores with `.sys` scope: PTX ISA 8.4.")


def _hinted(template: str, operands: str, where=None, **kw) -> tuple[Form, Form]:
    """A form without, and with, `.L2::cache_hint` and its cache policy operand (ptxas 13.0:
    the hint only on `.global` or generic addresses)."""
    where = where or {}
    return (Form(template, operands, where=where, **kw),
            Form(template + ".L2::cache_hint", operands + ", policy", where={**where, "space": (".global",)},
                 **kw))


def _st_forms():
    v2 = tuple(t for t in _ST_TYPES if t != ".b128")
    v4 = tuple(t for t in _ST_TYPES if int(t[2:]) <= 32)
    v8 = (".b32", ".u32", ".s32", ".f32")
    v4w = (".b64", ".u64", ".s64", ".f64")
    out = []
    shared = (".shared", ".shared::cta", ".shared::cluster")
    # ptxas 13.0: `.L1::*` only on .global or generic addresses and never with a `.cop`
    for lead, where in (("{.weak}{.space}{.cop}", {}),
                        ("{.weak}{.space}{.l1}", {"space": (".global",)}),
                        (".sem.scope{.space}", {"sem": (".relaxed", ".release"), "space": (".global",) + shared}),
                        (".sem.scope{.space}{.l1}", {"sem": (".relaxed", ".release"), "space": (".global",)})):
        out += _scalar_store(lead, where)
        out += _hinted(lead + ".v2.type", "a, bv", where={**where, "type": v2})
        out += _hinted(lead + ".v4.type", "a, bv", where={**where, "type": v4})
        out += _hinted(lead + ".v8.type", "a, bv", where={**where, "type": v8, "space": (".global",)},
                       gate=_WIDE)
        out += _hinted(lead + ".v4.type", "a, bv", where={**where, "type": v4w, "space": (".global",)},
                       gate=_WIDE)
    vol = {"space": (".global", ".shared", ".shared::cta", ".shared::cluster")}
    out.append(Form(".volatile{.space}.type", "a, b", where=vol))
    out.append(Form(".volatile{.space}.v2.type", "a, bv", where={**vol, "type": v2}))
    out.append(Form(".volatile{.space}.v4.type", "a, bv", where={**vol, "type": v4}))
    out.append(Form(".mmio.relaxed.sys{.space}.type", "a, b",
                    where={"space": (".global",), "type": v2}))
    out.append(Form(".mmio.relaxed.sys{.space}.b128", "a, b", where={"space": (".global",)},
                    gate=_B128_SYS_STORE))
    return tuple(out)


def _scalar_store(lead: str, where: dict) -> tuple:
    """The scalar store forms of a lead; with a scope, `.sys` and `.b128` together in forms of
    their own, which open a PTX ISA version later than either alone."""
    if ".scope" not in lead:
        return _hinted(lead + ".type", "a, b", where=dict(where))
    narrow = tuple(t for t in _ST_TYPES if t != ".b128")
    return (_hinted(lead + ".type", "a, b", where={**where, "scope": (".cta", ".cluster", ".gpu")})
            + _hinted(lead + ".type", "a, b", where={**where, "scope": (".sys",), "type": narrow})
            + _hinted(lead + ".b128", "a, b", where={**where, "scope": (".sys",)}, gate=_B128_SYS_STORE))


_ST = InstructionSpec("st", "PTX ISA 9.7.9.10 (st)", (
    Group("mmio", (".mmio",)), Group("sem", (".weak", ".volatile", ".relaxed", ".release")), _SCOPE,
    Group("space", _ST_SPACES), Group("cop", (".wb", ".cg", ".cs", ".wt")), Group("l1", _L1), _HINT,
    Group("vec", (".v2", ".v4", ".v8")), Group("type", _ST_TYPES),
), forms=_st_forms(), operands={
    "a": "addr", "b": "reg|imm:type+", "bv": "vec|reg:type+*vec", "policy": "reg|imm:.u64",
}, gates=_GATES)

# atomic operations and the types ptxas 13.0 takes for each
_BITWISE = (".b32", ".b64")
_ADD = (".u32", ".s32", ".u64", ".f32", ".f64")
_MINMAX = (".u32", ".s32", ".u64", ".s64")
_HALF = (".f16", ".f16x2", ".bf16", ".bf16x2")
_F16_ATOM = Gate((6, 3), 70, "atom .f16 add", "atom/red .add.noftz.f16: PTX ISA 6.3, sm_70.")
_F16X2_ATOM = Gate((6, 2), 60, "atom .f16x2 add", "atom/red .add.noftz.f16x2: PTX ISA 6.2, sm_60.")
_BF16_ATOM = Gate((7, 8), 90, "atom .bf16 add", "atom/red .add.noftz.bf16/.bf16x2: PTX ISA 7.8, sm_90.")
_VEC_ATOM = Gate((8, 1), 90, "atom/red vectors", "atom/red with vector types: PTX ISA 8.1, sm_90, .global.")
_F64_ADD = Gate((5, 0), 60, "atom .add.f64", "atom/red .add.f64: PTX ISA 5.0, sm_60.")
_B16_CAS = Gate((6, 3), 70, "atom .cas.b16", "atom.cas.b16: PTX ISA 6.3, sm_70.")
_B128 = Gate((8, 3), 90, "atom .b128", "atom .exch/.cas .b128: PTX ISA 8.3, sm_90.")
_B128_SYS = Gate((8, 4), 90, "atom .b128 .sys", "atom .b128 with `.sys` scope: PTX ISA 8.4, sm_90.")


def _atomic_forms(atom: bool):
    """The forms of atom (d, [a], b) or red ([a], b)."""
    lead = "{.sem}{.scope}{.space}"
    head = "d, a, " if atom else "a, "
    vhead = "dv, a, " if atom else "a, "
    out = []

    def add(tmpl, ops, **kw):
        out.extend(_hinted(lead + tmpl, head + ops, **kw))

    def addv(tmpl, ops, **kw):
        out.extend(_hinted(lead + tmpl, vhead + ops, **kw))

    add(".op.type", "b", where={"op": (".and", ".or", ".xor"), "type": _BITWISE})
    if atom:
        # not in the ISA: ptxas 13.0 takes a fourth .b32 operand on the bitwise and exchange
        # operations of .b32 (and refuses it on every other atom)
        out.append(Form(lead + ".op.b32", "d, a, b, c4", where={"op": (".and", ".or", ".xor", ".exch")}))
        out.append(Form("{.sem}{.scope}{.space}.exch.b128", "d, a, b, c", gate=_B128,
                        where={"scope": (".cta", ".cluster", ".gpu")}))
        out.append(Form("{.sem}.sys{.space}.exch.b128", "d, a, b, c", gate=_B128_SYS))
    add(".add.type", "b", where={"type": (".u32", ".s32", ".u64", ".f32")})
    add(".add.f64", "b", gate=_F64_ADD)
    add(".op.u32", "b", where={"op": (".inc", ".dec")})
    add(".op.type", "b", where={"op": (".min", ".max"), "type": _MINMAX})
    add(".add.noftz.f16", "b", gate=_F16_ATOM)
    add(".add.noftz.f16x2", "b", gate=_F16X2_ATOM)
    add(".add.noftz.type", "b", where={"type": (".bf16", ".bf16x2")}, gate=_BF16_ATOM)
    if atom:
        add(".exch.type", "b", where={"type": _BITWISE})
        out.extend(_hinted("{.sem}{.scope}{.space}.exch.b128", "d, a, b", gate=_B128,
                           where={"scope": (".cta", ".cluster", ".gpu")}))
        out.extend(_hinted("{.sem}.sys{.space}.exch.b128", "d, a, b", gate=_B128_SYS))
        # no cache hint on cas ("Illegal modifier '.L2::cache_hint'")
        out.append(Form(lead + ".cas.type", "d, a, b, c", where={"type": _BITWISE}))
        out.append(Form(lead + ".cas.b16", "d, a, b, c", gate=_B16_CAS))
        out.append(Form("{.sem}{.scope}{.space}.cas.b128", "d, a, b, c", gate=_B128,
                        where={"scope": (".cta", ".cluster", ".gpu")}))
        out.append(Form("{.sem}.sys{.space}.cas.b128", "d, a, b, c", gate=_B128_SYS))
    g = {"space": (".global",)}
    addv(".add.vec.f32", "bv", where={**g, "vec": (".v2", ".v4")}, gate=_VEC_ATOM)
    addv(".op.noftz.vec.type", "bv", where={**g, "op": (".add", ".min", ".max"), "type": (".f16", ".bf16")},
         gate=_VEC_ATOM)
    addv(".op.noftz.vec.type", "bv", where={**g, "op": (".add", ".min", ".max"), "vec": (".v2", ".v4"),
                                            "type": (".f16x2", ".bf16x2")}, gate=_VEC_ATOM)
    return tuple(out)


# atom/red scopes without a memory order are older than `.sem` (PTX ISA 5.0, sm_60)
_SCOPE_ONLY = Gate((5, 0), 60, "atom/red scope", "atom/red `.scope`: PTX ISA 5.0, sm_60.")
_ATOM_GATES = {**_GATES, ".cta": _SCOPE_ONLY, ".gpu": _SCOPE_ONLY, ".sys": _SCOPE_ONLY}


def _atomic(name: str, section: str, sems: tuple[str, ...]) -> InstructionSpec:
    atom = name == "atom"
    ops = (".and", ".or", ".xor", ".add", ".inc", ".dec", ".min", ".max") + ((".exch", ".cas") if atom else ())
    return InstructionSpec(name, section, (
        Group("sem", sems), _SCOPE,
        Group("space", (".global", ".shared", ".shared::cta", ".shared::cluster")),
        Group("op", ops), Group("noftz", (".noftz",)), _HINT, Group("vec", (".v2", ".v4", ".v8")),
        Group("type", _BITWISE + (".b16", ".b128", ".u32", ".s32", ".u64", ".s64", ".f32", ".f64") + _HALF),
    ), forms=_atomic_forms(atom), operands={
        "d": "=reg|sink:type", "dv": "=vec:type*vec", "a": "addr", "b": "reg|imm:type",
        "c": "reg|imm:type", "c4": "reg:type", "bv": "vec:type*vec", "policy": "reg|imm:.u64",
    }, gates=_ATOM_GATES)


RECORDS = (
    _ST,
    _atomic("atom", "PTX ISA 9.7.13.5 (atom)", (".relaxed", ".acquire", ".release", ".acq_rel")),
    _atomic("red", "PTX ISA 9.7.13.6 (red)", (".relaxed", ".release")),
)
