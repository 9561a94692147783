"""PTX ``ld`` -> Maxwell SASS, as ptxas 12.9 lowers it for sm_50..sm_61.

Each load is read by the parser into its load model and checked as ptxas checks it (for the
target `arch`); what ptxas would refuse is a SassError naming the diagnostic.

Rules (each checked against ptxas output in ``tests/sass/data/lowering_sm50.jsonl.gz``):
* ``ld.global`` -> ``LDG.E``; ``.nc`` -> ``.CI`` whatever its cache operator; ``.volatile`` and
  ``.cv`` -> ``.CV``; ``.cg``/``.lu`` -> ``.CG``; ``.ca``/``.cs``/none -> no cache modifier.
* generic ``ld`` -> ``LD.E ..., [Ra], P`` behind an ``LEA``/``LEA.HI.X`` pair that adds the offset
  and makes P.
* sizes: one memory access of the whole vector: 8/16 bits -> ``.U8/.S8/.U16/.S16`` (signed if the
  element type is), 32 -> default, 64 -> ``.64``, 128 -> ``.128``; sub-word elements are then
  extracted with ``BFE``/``LOP32I.AND``.
* a 128-bit load from a warp-uniform address becomes ``.U.128``, but only without a cache
  operator or with ``.ca`` (``.cs``, ``.cg``, ``.lu``, ``.cv``, ``.volatile`` keep ``.128``).
* with ``.address_size 32`` (ptxas 11.8 ``-m32``) there is no ``.E``; a uniform ``.v4`` of
  32-bit elements at a register+offset address stays ``.128`` (observed, not explained).
* an offset outside ImmS24 is split: its sign-extended low 24 bits stay in the LDG and the rest
  is added with ``IADD32I``/``IADD.X``; an offset outside 32 bits is added whole.
Register numbers are fixed placeholders (address R2:R3, destination R4 up); the mnemonics,
modifiers and immediates are ptxas's.
"""
from __future__ import annotations

from dataclasses import dataclass

from ptxld.checker import check_module
from ptxld.checker.gates import ld_features
from ptxld.checker.snippet import SnippetError, check_loads
from ptxld.ptx.loads import LoadModel
from ptxld.ptx.nodes import Address, Instruction
from ptxld.sass.encoding import LdgInstruction, check_arch, signed_hex
from ptxld.sass.errors import SassError
from ptxld.sass.syntax import format_instruction
from ptxld.spec.ld import GATES
from ptxld.spec.types import kind_bits

SIZE_CODE = {8: "U8", 16: "U16", 32: "32", 64: "64", 128: "128"}
#: SASS cache modifier of each PTX cache operator on a plain (coherent) load.
COP_CODE = {None: "CA", ".ca": "CA", ".cs": "CA", ".cg": "CG", ".lu": "CG", ".cv": "CV"}
#: Values of ptxas's -dlcm (--def-load-cache: the cache operator of a global/generic load that
#: names none) and -flcm (--force-load-cache: the cache operator of every global/generic load
#: but `.nc` and `.volatile` ones, whatever it names), measured with ptxas 12.9 on sm_50
#: (tests/sass/data/dlcm_sm50.json).
DLCM = ("ca", "cg", "cs", "cv")

ADDR_LO, ADDR_HI, DEST = 2, 3, 4


@dataclass(frozen=True)
class PtxLoad:
    """The parts of one PTX load that decide its SASS (read from its load model)."""

    generic: bool
    nc: bool
    volatile: bool
    cop: str | None
    vec: int
    kind: str        # "b", "u", "s" or "f"
    bits: int        # element size
    base: str | None  # register or symbol; None for an immediate address
    symbol: bool
    offset: int
    guard: str | None


def _arch_number(arch: str) -> int:
    return int(arch.split("_")[1])


def load_of(ins: Instruction, arch: str, diagnostics: list) -> PtxLoad:
    """The SASS-relevant parts of one checked load; SassError where ptxas would refuse it, or
    where the load does not become LDG/LD."""
    m = ins.load
    text = " ".join(ins.text.split())
    if not isinstance(m, LoadModel):
        raise SassError(f"{text!r}: not a PTX load (expected `ld... dst, [addr];`)")
    errors = [d for d in diagnostics if d.severity == "error"]
    if errors:
        d = errors[0]
        raise SassError(f"{text!r}: {d.message} [{d.code}]; ptxas rejects it for {arch}")
    if m.space_base not in (None, ".global"):
        raise SassError(f"{text!r}: {m.space} loads do not lower to LDG/LD (only .global and "
                        f"generic loads do)")
    sm = _arch_number(arch)
    if m.is_256_bit or m.vector_length * m.type_bits > 128:
        raise SassError(f"{text!r}: a {m.access_bits}-bit load needs sm_100; {arch} has no such LDG")
    for key, _ in ld_features(m):
        gate = GATES[key]
        if gate.ptxas_checks_sm and gate.min_sm and sm < gate.min_sm:
            raise SassError(f"{text!r}: {key} requires sm_{gate.min_sm} or later; ptxas rejects it "
                            f"for {arch}")
    a = m.address
    if a is None or not isinstance(ins.operands[1], Address):
        raise SassError(f"{text!r}: the address must be [reg], [reg+imm], [symbol+imm] or [imm]")
    base = a.base.name if a.base is not None else None
    if base is None and m.space is not None:
        raise SassError(f"{text!r}: ptxas rejects immediate addresses for .global "
                        f"(\"Immediate addresses allowed only for .local\")")
    if base is None:
        raise SassError(f"{text!r}: immediate generic addresses are not supported")
    kind, bits = kind_bits(m.type)
    guard = None
    if ins.guard is not None:
        guard = ("@!" if ins.guard.negated else "@") + ins.guard.name.text
    return PtxLoad(m.space is None, m.nc, m.sem == ".volatile", m.get("cop"), m.vector_length,
                   kind, bits, base, not base.startswith("%"), a.offset, guard)


def _instructions(source, arch: str, address_size: int):
    """(instruction, its diagnostics) for a PTX text, a parsed instruction, or a list of them."""
    if isinstance(source, Instruction):
        from_module = check_module(source.module)
        return [(source, [d for d in from_module if d.line == source.line])]
    if isinstance(source, (list, tuple)):
        return [pair for item in source for pair in _instructions(item, arch, address_size)]
    try:
        return check_loads(str(source), target=arch, address_size=address_size,
                           filename="<lower>").loads
    except SnippetError as e:
        raise SassError(str(e)) from None


# ---------------------------------------------------------------------------------------------

def lower(instruction, *, arch: str = "sm_50", uniform: bool | None = None,
          address_size: int = 64, dlcm: str | None = None, flcm: str | None = None) -> list[str]:
    """SASS text of PTX loads: address arithmetic, the load, sub-word extraction, for each load
    in turn (every load uses the same placeholder registers).

    ``instruction`` is PTX text (one or several loads), a parsed `Instruction`, or a list.
    ``uniform``: whether the address is the same for all threads of a warp (ptxas proves it
    for kernel-parameter pointers); ``None`` takes it as known only for symbol addresses.
    ``address_size=32`` lowers as ptxas 11.8 ``-m32`` does (no ``.E``). ``dlcm`` and ``flcm``
    are ptxas's ``-dlcm`` (default cache operator of loads that name none) and ``-flcm``
    (forced cache operator of every load but ``.nc`` and ``.volatile`` ones)."""
    check_arch(arch)
    if address_size not in (32, 64):
        raise SassError(f"address_size must be 32 or 64, not {address_size}")
    for name, value in (("dlcm", dlcm), ("flcm", flcm)):
        if value is not None and value not in DLCM:
            raise SassError(f"-{name}={value}: expected one of {', '.join(DLCM)}")
    out: list[str] = []
    for ins, diagnostics in _instructions(instruction, arch, address_size):
        out += _lower_one(load_of(ins, arch, diagnostics), uniform, address_size, dlcm, flcm)
    return out


def _lower_one(ld: PtxLoad, uniform: bool | None, address_size: int, dlcm: str | None,
               flcm: str | None) -> list[str]:
    if uniform is None:
        uniform = ld.symbol
    total = ld.vec * ld.bits
    signed = ld.kind == "s"
    size = SIZE_CODE[total]
    if total <= 16 and signed:
        size = "S" + size[1:]
    cop = ld.cop
    if flcm is not None:
        cop = "." + flcm
    elif cop is None and dlcm is not None:
        cop = "." + dlcm
    plain_cop = cop in (None, ".ca") and not ld.volatile
    # observed with ptxas 11.8 -m32 only: a .v4 of 32-bit elements at register+offset stays .128
    # (a .v2 of 64-bit elements there becomes .U.128 as in 64-bit code)
    if address_size == 32 and ld.offset and ld.vec == 4:
        uniform = False
    if total == 128 and uniform and plain_cop:
        size = "U.128"
    if ld.nc:
        code = "CI"
    elif ld.volatile:
        code = "CV"
    else:
        code = COP_CODE[cop]
    wide = address_size == 64
    out: list[str] = []
    guard_pred, guard_neg = 7, False
    if ld.guard:
        guard_pred, guard_neg = 0, ld.guard.startswith("@!")
    if ld.symbol:
        out += [f"MOV R{ADDR_LO}, c[0x4][0x0]"] + ([f"MOV R{ADDR_HI}, c[0x4][0x4]"] if wide else [])
    if ld.generic:
        out += _generic_address(ld.offset, wide)
        insn = LdgInstruction(form="ld", rd=DEST, ra=ADDR_LO, imm=0, size=size, cop=code, e=wide,
                               pred=guard_pred, pred_neg=guard_neg, p=0)
    else:
        ops, imm = _split_offset(ld.offset, wide)
        out += ops
        insn = LdgInstruction(form="ldg", rd=DEST, ra=ADDR_LO, imm=imm, size=size, cop=code,
                               e=wide, pred=guard_pred, pred_neg=guard_neg)
    out.append(format_instruction(insn))
    out += _extract(ld)
    return out


def _split_offset(off: int, wide: bool) -> tuple[list[str], int]:
    """(address instructions, LDG immediate) for a register + offset address."""
    if -(2**23) <= off < 2**23:
        return [], off
    if -(2**31) <= off < 2**31 or not wide:
        imm = ((off & 0xFFFFFF) ^ 0x800000) - 0x800000
        rest = off - imm
    else:
        imm, rest = 0, off
    low, high = _s32(rest & 0xFFFFFFFF), rest >> 32
    ops = []
    if low:
        ops.append(f"IADD32I R{ADDR_LO}{'.CC' if wide else ''}, R{ADDR_LO}, {signed_hex(low)}")
    if wide:
        ops.append(f"IADD.X R{ADDR_HI}, RZ, R{ADDR_HI}" if high == 0
                   else f"IADD32I.X R{ADDR_HI}, R{ADDR_HI}, {signed_hex(high)}")
    return ops, imm


def _generic_address(off: int, wide: bool) -> list[str]:
    """The LEA pair ptxas builds a generic address with; the offset goes into the LEA (as an
    immediate up to 19 bits, else as a constant-bank literal), or beforehand when outside 32 bits."""
    base_lo, base_hi = 0, 1
    ops = []
    if not -(2**31) <= off < 2**31:
        low, high = _s32(off & 0xFFFFFFFF), off >> 32
        if low:
            ops.append(f"IADD32I R{base_lo}.CC, R{base_lo}, {signed_hex(low)}")
        ops.append(f"IADD32I.X R{base_hi}, R{base_hi}, {signed_hex(high)}")
        off = 0
    if off == 0:
        lo_src = "RZ"
    elif -(2**19) <= off < 2**19:
        lo_src = signed_hex(off)
    else:
        lo_src = "c[0x2][0x0]"
    hi_src = "RZ" if off >= 0 else ("c[0x2][0x0]" if lo_src != "c[0x2][0x0]" else "c[0x2][0x4]")
    if not wide:
        return ops + [f"LEA R{ADDR_LO}, R{base_lo}, {lo_src}"]
    return ops + [f"LEA R{ADDR_LO}.CC, R{base_lo}, {lo_src}",
                  f"LEA.HI.X P0, R{ADDR_HI}, R{base_lo}, {hi_src}, R{base_hi}"]


def _extract(ld: PtxLoad) -> list[str]:
    """Element extraction after a vector load of 8- or 16-bit elements."""
    if ld.vec == 1 or ld.bits > 16:
        return []
    out = []
    signed = ld.kind == "s"
    for i in range(ld.vec):
        word = DEST + (i * ld.bits) // 32
        pos = (i * ld.bits) % 32
        dst = DEST + 4 + i
        if ld.bits == 16 and pos == 0 and not signed:
            out.append(f"LOP32I.AND R{dst}, R{word}, 0xffff")
        else:
            out.append(f"BFE{'' if signed else '.U32'} R{dst}, R{word}, {ld.bits << 8 | pos:#x}")
    return out


def _s32(v: int) -> int:
    return v - (1 << 32) if v & 0x80000000 else v

