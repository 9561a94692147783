"""Operand type checking shared by the load rules: Table 28 as ptxas applies it, and addresses."""
from __future__ import annotations

from ..ptx.nodes import Name
from ..ptx.operands import first_address_base
from ..spec.types import kind_bits
from .context import Checker, reg_type
from .registry import ADDRESS_SECTION, Example, Rule, Trigger, reports, rule


def type_name(t) -> str:
    if t is None:
        return "?"
    kind, bits = t
    if kind == "f16x2":
        return ".f16x2"
    return f".{kind}{bits}" if kind in ("b", "u", "s", "f") else f".{kind}"


def dest_compatible(itype: str, reg: tuple[str, int], *, vector: bool = False) -> bool:
    """May `ld{itype}` write a register of type `reg`? (PTX ISA Table 28, as ptxas 13.0 applies it).

    ptxas 13.0 is looser for vector destinations: `.v2/.v4/.v8 .f32` into `.u32/.s32` and
    `.v2/.v4 .f64` into `.u64/.s64` registers pass, while the scalar forms are rejected
    (measured over every vector length x type x register class)."""
    ik, ib = kind_bits(itype)
    rk, rb = reg
    if rk == "pred" or rb < ib:
        return False
    if ik == "b":
        return ib < 128 or (rk == "b" and rb == 128)
    if ik in ("u", "s"):
        return rk in ("b", "u", "s", "f16x2")
    if ik == "f":
        return (rk == "f" and rb == ib) or rk == "b" or (vector and rk in ("u", "s") and rb == ib and ib >= 32)
    return False


def destination_types(c: Checker, ins, op):
    """(kind, bits) of a destination register operand, or None."""
    if isinstance(op, Name):
        return reg_type(c.lookup(ins, op.name))
    return None


_ADDRESSABLE_GENERIC = frozenset({".global", ".shared", ".local"})


@reports(
    Rule("PTX0307", "address-register-type", "error",
         "an address register must have an integer or bit-size type of at most 64 bits",
         ADDRESS_SECTION,
         "The register in [reg] may be any integer (.u/.s) or bit-size (.b) type.",
         Example(body="ld.global.u32 %r1, [%f1];"),
         Example(body="ld.global.u32 %r1, [%rd0];"),
         ptxas="error: Illegal to use symbol '%f1' of type .f32 as address operand. Use integer or bit only."),
    Rule("PTX0309", "address-register-16-bit", "warning",
         "a 16-bit register as a `.global` or generic address in a 64-bit module",
         ADDRESS_SECTION + "; ptxas 13.0 (measured)",
         "An address held in a register narrower than the address size is zero-extended.",
         Example(body="ld.global.u32 %r1, [%h1];"),
         Example(body="ld.global.u32 %r1, [%rd0];"),
         ptxas="warning: Program uses 16-bit address on line 'N' which is conflicting with .address_size 64"),
    Rule("PTX0310", "address-space-mismatch", "error",
         "the variable lives in another state space than the instruction reads",
         ADDRESS_SECTION + "; ptxas 13.0 (measured)",
         "The state space named by a memory instruction must match the state space of the address "
         "operand; generic ld may name .global, .shared and .local variables, not .const or .param.",
         Example(body="ld.global.u32 %r1, [sbuf];"),
         Example(body="ld.shared.u32 %r1, [sbuf];"),
         ptxas="error: State space mismatch between instruction and address in instruction 'ld'"),
    Rule("PTX0312", "immediate-address", "error",
         "ptxas allows immediate addresses only for `.local`",
         ADDRESS_SECTION + "; ptxas 13.0 (measured)",
         "d = *(immAddr) is listed without restriction, but ptxas 13.0 accepts [imm] only with .local.",
         Example(body="ld.global.u32 %r1, [240];"),
         Example(body="ld.local.u32 %r1, [240];"),
         ptxas="error: Immediate addresses allowed only for .local state space"),
    Rule("PTX0315", "address-not-data", "error",
         "the address names a function, kernel or label, not a variable",
         ADDRESS_SECTION,
         "[var] takes the address of an addressable variable.",
         Example(body="ld.global.u32 %r1, [kernel];"),
         Example(body="ld.global.u32 %r1, [gbuf];"),
         ptxas="error: Illegal to use symbol 'kernel' of type unexpected as address operand"))
def check_address(c: Checker, ins, a, space_base: str | None, space: str | None, *, ld: bool,
                  nc: bool = False) -> None:
    """Immediate addresses, the address register's type and width, and a named variable's space."""
    what = "ld" if ld else "wmma.load"
    if a.base is None:
        if space_base != ".local":
            c.emit("PTX0312", a.start, a.end, "ptxas accepts immediate addresses only with `.local`",
                   label="immediate address",
                   notes=["the PTX ISA lists `d = *(immAddr)` without restriction; ptxas 13.0 rejects it "
                          "for every other state space"],
                   help="put the address in a register first")
        return
    base = a.base
    var = c.lookup(ins, base.name)
    if var is None:
        if base.name in c.labels_of(ins.function):
            c.emit("PTX0315", base.start, base.end, f"`{base.name}` is a label, not a variable",
                   label="not data", help="load from a variable or a register holding an address",
                   notes=["ptxas 13.0: Illegal to use symbol of type unexpected as address operand"])
        return  # otherwise undeclared: PTX0301
    kind = getattr(var, "kind", "")
    if kind != "variable":
        c.emit("PTX0315", base.start, base.end, f"`{base.name}` is a {kind or 'label'}, not a variable",
               label="not data", help="load from a variable or a register holding an address")
        return
    if var.space == ".reg":
        t = reg_type(var)
        if t is None or t[0] not in ("b", "u", "s") or t[1] > 64 or var.vector:
            c.emit("PTX0307", base.start, base.end,
                   f"`{base.name}` ({var.type}) cannot hold an address",
                   label="not an integer or bit-size register",
                   help="use a `.b64`/`.u64` register (`.u32` for `.shared`/`.local` offsets)")
            return
        if ld and space_base in (None, ".global") and c.address_size != 32:
            if t[1] == 32:
                address_32(c, base)
            elif t[1] < 32:
                c.emit("PTX0309", base.start, base.end,
                       f"`{base.name}` is a {t[1]}-bit register used as a 64-bit address",
                       label=f"{t[1]}-bit address (zero-extended)", help="use a 64-bit register")
        return
    vspace = var.space
    if vspace in (".reg", ".sreg"):
        return
    ok = (vspace in _ADDRESSABLE_GENERIC) if space_base is None else (vspace == space_base)
    if not ok:
        where = f"`{space_base}`" if space_base else "generic addressing"
        hint = f"write `{what}{vspace}`" if space_base is not None or vspace in _ADDRESSABLE_GENERIC \
            else f"use `{what}{vspace}`, or a generic address from `cvta{vspace}`"
        c.emit("PTX0310", base.start, base.end, f"`{base.name}` is a `{vspace}` variable, read with {where}",
               label=f"`{vspace}` variable", secondary=[(var.start, var.end, "declared here")],
               help=hint)


@reports(
    Rule("PTX0308", "address-register-32-bit", "error",
         "a 32-bit register as a `.global` or generic address in a 64-bit module",
         ADDRESS_SECTION + "; ptxas 13.0 (measured)",
         "Addresses in a 64-bit module are 64 bits; ptxas 13.0 treats a 32-bit .global/generic address "
         "register as 32-bit addressing, which it no longer compiles.",
         Example(body="ld.global.u32 %r1, [%r2];"),
         Example(body="ld.global.u32 %r1, [%rd0];"),
         ptxas="warning: Program uses 32-bit address ... then fatal: 32-Bit ABI ... not supported"))
def address_32(c: Checker, base: Name) -> None:
    """PTX0308. Without `.address_size` a module of 32-bit addresses is reported once (ptxas
    stops at the first one too); with `.address_size 64` every occurrence is a mistake."""
    c.addr32 += 1
    if c.address_size is None and c.addr32 > 1:
        return
    c.emit("PTX0308", base.start, base.end,
           f"`{base.name}` is a 32-bit register; `.global` and generic addresses are 64 bits",
           label="32-bit address",
           notes=["ptxas 13.0 then stops: 32-bit addressing is no longer supported"]
           + (["the module has no `.address_size`, so it is 32-bit code; add `.address_size 64` "
               "and use 64-bit address registers"] if c.address_size is None else []),
           help="widen it first: `cvt.u64.u32 %rd, " + base.name + ";`")


_STORE_LIKE = frozenset({"st", "atom", "red"})
_OTHER_SPACES = frozenset({".shared", ".local", ".const", ".param", ".shared::cta", ".shared::cluster",
                           ".param::func", ".param::entry"})


@rule(Trigger.STORE, also=("PTX0308",))
def check_store_address_width(c: Checker, ins) -> None:
    """The one check on st/atom/red: a 32-bit `.global`/generic address (ptxas's 32-bit stop)."""
    if c.address_size == 32:
        return
    if ins.decoded.get("space") in _OTHER_SPACES:
        return
    base = first_address_base(ins)
    if base is not None:
        t = reg_type(c.lookup(ins, base.name))
        if t is not None and t[1] == 32 and t[0] in ("b", "u", "s"):
            address_32(c, base)
