"""Encode and decode LDG / sparse LDG / LD words with the field table in ``ptxld.spec.ldg``."""
from __future__ import annotations

from dataclasses import dataclass, replace

from ptxld.spec import ldg as spec
from ptxld.sass.errors import SassError

MASK64 = 2**64 - 1


@dataclass(frozen=True)
class LdgInstruction:
    """One decoded load; the fields are logical values (Ps not inverted, imm sign-applied)."""

    form: str = "ldg"              # "ldg", "ldg_sparse" or "ld"
    rd: int = 0
    ra: int = spec.RZ
    imm: int = 0                   # signed offset, or unsigned absolute address when ra == RZ
    size: str = spec.DEFAULT_SIZE
    cop: str = spec.DEFAULT_COP
    e: bool = False
    pred: int = spec.PT
    pred_neg: bool = False
    ps: int | None = None          # sparse-status predicate (ldg_sparse only)
    p: int | None = None           # trailing predicate operand (ld only); PT when not printed

    @property
    def spec_form(self) -> spec.Form:
        return FORM_BY_NAME[self.form]

    @property
    def mnemonic(self) -> str:
        return self.spec_form.mnemonic

    def with_(self, **changes) -> "LdgInstruction":
        return replace(self, **changes)


FORM_BY_NAME = {f.name: f for f in spec.FORMS}


def check_arch(arch: str) -> str:
    if arch not in spec.ARCHES:
        raise SassError(f"unsupported architecture {arch!r}: LDG encodings exist for "
                        + ", ".join(spec.ARCHES))
    return arch


def imm_range(form: spec.Form, absolute: bool) -> tuple[int, int]:
    """Inclusive range of the address immediate: unsigned when Ra is RZ, signed otherwise."""
    n = form.imm_bits
    return (0, 2**n - 1) if absolute else (-(2 ** (n - 1)), 2 ** (n - 1) - 1)


def find_form(word: int, arch: str) -> spec.Form:
    check_arch(arch)
    for form in spec.FORMS:
        if word & form.opcode_mask == form.opcode_value:
            if arch not in form.arches:
                raise SassError(f"word {word:#018x}: {form.mnemonic} with a sparse-status "
                                f"predicate does not exist on {arch} (nvdisasm rejects it; "
                                f"it exists from sm_52 on)")
            return form
    raise SassError(f"word {word:#018x} is not an LDG or LD instruction")


def decode(word: int, *, arch: str = "sm_50") -> LdgInstruction:
    if not 0 <= word <= MASK64:
        raise SassError(f"word {word:#x} does not fit in 64 bits")
    form = find_form(word, arch)
    raw = {f.name: ((word & f.mask) >> f.lo) ^ f.invert for f in form.fields}
    imm = raw["imm"]
    if raw["ra"] != spec.RZ and imm >> (form.imm_bits - 1):
        imm -= 1 << form.imm_bits
    return LdgInstruction(
        form=form.name, rd=raw["rd"], ra=raw["ra"], imm=imm,
        size=spec.SIZES[raw["size"]], cop=spec.COPS[raw["cop"]], e=bool(raw["e"]),
        pred=raw["pred"], pred_neg=bool(raw["pred_neg"]),
        ps=raw.get("ps"), p=raw.get("p"),
    )


def encode(insn: LdgInstruction, *, arch: str = "sm_50") -> int:
    check_arch(arch)
    form = FORM_BY_NAME[insn.form]
    if arch not in form.arches:
        raise SassError(f"LDG with a sparse-status predicate (Ps) does not exist on {arch}; "
                        f"it needs sm_52 or later")
    lo, hi = imm_range(form, insn.ra == spec.RZ)
    if not lo <= insn.imm <= hi:
        kind = "absolute address" if insn.ra == spec.RZ else "offset"
        raise SassError(f"{form.mnemonic}: {kind} {signed_hex(insn.imm)} is outside "
                        f"[{signed_hex(lo)}, {signed_hex(hi)}] ({form.imm_bits}-bit immediate)")
    cop = spec.COP_ALIASES.get(insn.cop, insn.cop)
    values = {
        "rd": insn.rd, "ra": insn.ra, "imm": insn.imm & ((1 << form.imm_bits) - 1),
        "size": spec.SIZES.index(insn.size), "cop": spec.COPS.index(cop), "e": int(insn.e),
        "pred": insn.pred, "pred_neg": int(insn.pred_neg),
        "ps": spec.PT if insn.ps is None else insn.ps,
        "p": spec.PT if insn.p is None else insn.p,
    }
    word = form.opcode_value
    for f in form.fields:
        v = values[f.name]
        if not 0 <= v < (1 << f.width):
            raise SassError(f"{form.mnemonic}: field {f.name}={v} does not fit {f.width} bits")
        word |= ((v ^ f.invert) << f.lo) & f.mask
    return word


def signed_hex(v: int) -> str:
    return f"-{-v:#x}" if v < 0 else f"{v:#x}"
