"""PTX ``ld`` -> Maxwell SASS, as ptxas 12.9 lowers it for sm_50..sm_61.

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

import re
from dataclasses import dataclass

from ptxld.sass.encoding import Instruction, check_arch, signed_hex
from ptxld.sass.errors import SassError
from ptxld.sass.syntax import format_instruction

TYPES = {f"{k}{b}": (k, b) for k in "bus" for b in (8, 16, 32, 64)} | {"f32": ("f", 32),
                                                                       "f64": ("f", 64)}
COPS = ("ca", "cg", "cs", "lu", "cv")
NC_COPS = ("ca", "cg", "cs")
OTHER_SPACES = ("const", "local", "shared", "param", "tex")
NEEDS_SM70 = ("weak", "relaxed", "acquire", "mmio", "cta", "gpu", "sys", "cluster", "unified")
SIZE_CODE = {8: "U8", 16: "U16", 32: "32", 64: "64", 128: "128"}

ADDR_LO, ADDR_HI, DEST = 2, 3, 4
_LINE = re.compile(r"^\s*(?:(@!?%?\w+)\s+)?(ld(?:\.[\w:]+)*)\s+(.*?)\s*;?\s*$")
_ADDR = re.compile(r"^\[\s*([%\w$.]+)?\s*(?:([+-])\s*(-?\s*(?:0x[0-9a-f]+|\d+)))?\s*\]$", re.I)


@dataclass(frozen=True)
class PtxLoad:
    """The parts of one PTX load that decide its SASS."""

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


def parse_load(text: str) -> PtxLoad:
    """Split one PTX load into its qualifiers (in any order) and operands."""
    src = text.strip()
    m = _LINE.match(src.split("//")[0])
    if not m:
        raise SassError(f"{src!r}: not a PTX load (expected `ld... dst, [addr];`)")
    guard, opcode, operands = m.groups()
    quals = opcode.split(".")[1:]
    seen: dict[str, str] = {}

    def put(group: str, q: str) -> None:
        if group in seen:
            raise SassError(f"{src!r}: two {group} qualifiers (.{seen[group]} and .{q})")
        seen[group] = q

    for q in quals:
        if q == "global":
            put("state space", q)
        elif q in OTHER_SPACES or q.startswith("shared::") or q.startswith("param::"):
            raise SassError(f"{src!r}: .{q} loads do not lower to LDG/LD (only .global and "
                            f"generic loads do)")
        elif q == "nc":
            put("nc", q)
        elif q == "volatile":
            put("volatile", q)
        elif q in COPS:
            put("cache operator", q)
        elif q in ("v2", "v4"):
            put("vector", q)
        elif q in ("v8",):
            raise SassError(f"{src!r}: .v8 loads need sm_100 (PTX 8.8)")
        elif q in TYPES:
            put("type", q)
        elif q == "b128":
            raise SassError(f"{src!r}: type .b128 requires sm_70 (PTX 8.3); ptxas rejects it "
                            f"for sm_5x/sm_6x")
        elif q in NEEDS_SM70 or q.startswith(("L1::", "L2::")):
            need = "sm_75" if q.startswith("L2::") else "sm_70"
            raise SassError(f"{src!r}: .{q} requires {need} or later; ptxas rejects it for "
                            f"sm_5x/sm_6x")
        else:
            raise SassError(f"{src!r}: unknown load qualifier .{q}")
    if "type" not in seen:
        raise SassError(f"{src!r}: the load has no type (.u32, .f32, ...)")
    kind, bits = TYPES[seen["type"]]
    vec = int(seen.get("vector", "v1")[1:])
    cop = seen.get("cache operator")
    generic = "state space" not in seen
    nc, volatile = "nc" in seen, "volatile" in seen
    if nc and generic:
        raise SassError(f"{src!r}: .nc needs the .global state space")
    if nc and volatile:
        raise SassError(f"{src!r}: .nc and .volatile cannot be combined")
    if volatile and cop:
        raise SassError(f"{src!r}: .volatile cannot be combined with cache operator .{cop}")
    if nc and cop and cop not in NC_COPS:
        raise SassError(f"{src!r}: ld.global.nc takes only .ca, .cg or .cs, not .{cop}")
    if vec * bits > 128:
        raise SassError(f"{src!r}: a {vec * bits}-bit load needs sm_100 (PTX 8.8)")

    ops = _split_top(operands)
    if len(ops) != 2:
        raise SassError(f"{src!r}: expected two operands, destination and [address]")
    dst = ops[0].strip()
    n_dst = len(_split_top(dst[1:-1])) if dst.startswith("{") else 1
    if n_dst != vec:
        raise SassError(f"{src!r}: .v{vec} needs {vec} destination registers, got {n_dst}")
    am = _ADDR.match(ops[1].strip())
    if not am:
        raise SassError(f"{src!r}: address {ops[1].strip()!r} must be [reg], [reg+imm], "
                        f"[symbol+imm] or [imm]")
    base, sign, num = am.groups()
    offset = 0
    if num is not None:
        offset = int(num.replace(" ", ""), 0) * (-1 if sign == "-" else 1)
    if base is not None and re.fullmatch(r"-?(0x[0-9a-f]+|\d+)", base, re.I):
        offset, base = int(base, 0) + offset, None
    if base is None and not generic:
        raise SassError(f"{src!r}: ptxas rejects immediate addresses for .global "
                        f"(\"Immediate addresses allowed only for .local\")")
    if base is None:
        raise SassError(f"{src!r}: immediate generic addresses are not supported")
    return PtxLoad(generic, nc, volatile, cop, vec, kind, bits, base,
                   not base.startswith("%"), offset, guard)


def _split_top(s: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        depth += ch in "[{"
        depth -= ch in "]}"
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return out + [cur] if cur.strip() else out


# ---------------------------------------------------------------------------------------------

def lower(instruction: str, *, arch: str = "sm_50", uniform: bool | None = None,
          address_size: int = 64) -> list[str]:
    """SASS text of one PTX load: address arithmetic, the load, sub-word extraction.

    ``uniform``: whether the address is the same for all threads of a warp (ptxas proves it
    for kernel-parameter pointers); ``None`` takes it as known only for symbol addresses.
    ``address_size=32`` lowers as ptxas 11.8 ``-m32`` does (no ``.E``)."""
    check_arch(arch)
    if address_size not in (32, 64):
        raise SassError(f"address_size must be 32 or 64, not {address_size}")
    ld = parse_load(instruction)
    if uniform is None:
        uniform = ld.symbol
    total = ld.vec * ld.bits
    signed = ld.kind == "s"
    size = SIZE_CODE[total]
    if total <= 16 and signed:
        size = "S" + size[1:]
    plain_cop = ld.cop in (None, "ca") and not ld.volatile
    # observed with ptxas 11.8 -m32 only: a .v4 of 32-bit elements at register+offset stays .128
    # (a .v2 of 64-bit elements there becomes .U.128 as in 64-bit code)
    if address_size == 32 and ld.offset and ld.vec == 4:
        uniform = False
    if total == 128 and uniform and plain_cop:
        size = "U.128"
    if ld.nc:
        cop = "CI"
    elif ld.volatile or ld.cop == "cv":
        cop = "CV"
    elif ld.cop in ("cg", "lu"):
        cop = "CG"
    else:
        cop = "CA"
    wide = address_size == 64
    out: list[str] = []
    guard_pred, guard_neg = 7, False
    if ld.guard:
        guard_pred, guard_neg = 0, ld.guard.startswith("@!")
    if ld.symbol:
        out += [f"MOV R{ADDR_LO}, c[0x4][0x0]"] + ([f"MOV R{ADDR_HI}, c[0x4][0x4]"] if wide else [])
    if ld.generic:
        out += _generic_address(ld.offset, wide)
        insn = Instruction(form="ld", rd=DEST, ra=ADDR_LO, imm=0, size=size, cop=cop, e=wide,
                           pred=guard_pred, pred_neg=guard_neg, p=0)
    else:
        ops, imm = _split_offset(ld.offset, wide)
        out += ops
        insn = Instruction(form="ldg", rd=DEST, ra=ADDR_LO, imm=imm, size=size, cop=cop,
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

