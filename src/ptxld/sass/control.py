"""Maxwell/Pascal scheduling control: the 64-bit word before every three instructions.

Field layout in ``ptxld.spec.ldg.CONTROL_FIELDS``.  Two text notations:
* NVIDIA's annotations ``&req={0,5} &rd=0x0 &wr=0x5 ?trans1`` (the LDG description's
  ``{&req_6} {&rdN} {&wrN} {?sched}``): the wait set over six scoreboards, the read and write
  scoreboard indices, and ``?transN`` (stall N, yield bit 1) or ``?WAITN_END_GROUP`` (stall N,
  yield bit 0);
* maxas's ``wait:read:write:yield:stall``, e.g. ``--:-:6:-:1`` (scoreboards printed as index+1,
  ``Y`` for a yield, stall as one hex digit).
A stall of 0 with the yield bit set means the instruction dual-issues with the next one
(nvdisasm wraps the pair in braces).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, fields as dc_fields

from ptxld.spec import ldg as spec
from ptxld.sass.errors import SassError

_SLOT_MASK = (1 << spec.CONTROL_SLOT_BITS) - 1


@dataclass(frozen=True)
class Slot:
    """One instruction's scheduling; the defaults (``--:-:-:-:1``) are what an unannotated
    instruction gets: stall 1, no yield, no scoreboards."""

    stall: int = 1
    yield_: int = 1
    wr: int = spec.NO_BARRIER
    rd: int = spec.NO_BARRIER
    wait: int = 0
    reuse: int = 0

    @property
    def dual_issue(self) -> bool:
        return self.stall == 0 and self.yield_ == 1


def decode_slot(bits: int) -> Slot:
    return Slot(**{f.name: (bits >> f.lo) & ((1 << f.width) - 1) for f in spec.CONTROL_FIELDS})


def encode_slot(slot: Slot) -> int:
    bits = 0
    for f in spec.CONTROL_FIELDS:
        v = getattr(slot, f.name)
        if not 0 <= v < (1 << f.width):
            raise SassError(f"control field {f.name.rstrip('_')}={v} does not fit {f.width} bits")
        bits |= v << f.lo
    return bits


def decode_control(word: int) -> tuple[Slot, Slot, Slot]:
    if not 0 <= word < 2**64:
        raise SassError(f"control word {word:#x} does not fit in 64 bits")
    return tuple(decode_slot((word >> (spec.CONTROL_SLOT_BITS * k)) & _SLOT_MASK)
                 for k in range(spec.CONTROL_SLOTS))


def encode_control(slots) -> int:
    slots = list(slots)
    if len(slots) != spec.CONTROL_SLOTS:
        raise SassError(f"a control word has {spec.CONTROL_SLOTS} slots, got {len(slots)}")
    return sum(encode_slot(s) << (spec.CONTROL_SLOT_BITS * k) for k, s in enumerate(slots))


def slot_as_dict(slot: Slot) -> dict:
    return {f.name.rstrip("_"): getattr(slot, f.name) for f in dc_fields(slot)}


# --- maxas notation -------------------------------------------------------------------------

def format_maxas(slot: Slot) -> str:
    wait = "--" if slot.wait == 0 else f"{slot.wait:02x}"
    rd = "-" if slot.rd == spec.NO_BARRIER else str(slot.rd + 1)
    wr = "-" if slot.wr == spec.NO_BARRIER else str(slot.wr + 1)
    return f"{wait}:{rd}:{wr}:{'-' if slot.yield_ else 'Y'}:{slot.stall:x}"


def parse_maxas(text: str) -> Slot:
    parts = text.strip().split(":")
    if len(parts) != 5:
        raise SassError(f"control {text!r} must be wait:read:write:yield:stall, e.g. --:-:6:-:1")
    wait, rd, wr, yld, stall = parts
    try:
        w = 0 if set(wait) <= {"-"} else int(wait, 16)
        r = spec.NO_BARRIER if rd == "-" else int(rd) - 1
        x = spec.NO_BARRIER if wr == "-" else int(wr) - 1
        st = int(stall, 16)
    except ValueError:
        raise SassError(f"control {text!r}: fields must be hex/decimal digits or '-'") from None
    if yld not in ("-", "Y", "y"):
        raise SassError(f"control {text!r}: yield must be 'Y' or '-'")
    for name, v, hi in (("read barrier", r, 5), ("write barrier", x, 5)):
        if v != spec.NO_BARRIER and not 0 <= v <= hi:
            raise SassError(f"control {text!r}: {name} must be 1..6 or '-'")
    if not 0 <= w < 64 or not 0 <= st < 16:
        raise SassError(f"control {text!r}: wait mask is 00..3f and stall 0..f")
    return Slot(stall=st, yield_=0 if yld in "Yy" else 1, wr=x, rd=r, wait=w)


# --- NVIDIA annotations ---------------------------------------------------------------------

def format_annotations(slot: Slot) -> str:
    parts = []
    if slot.wait:
        parts.append("&req={" + ",".join(str(i) for i in range(6) if slot.wait >> i & 1) + "}")
    if slot.rd != spec.NO_BARRIER:
        parts.append(f"&rd={slot.rd:#x}")
    if slot.wr != spec.NO_BARRIER:
        parts.append(f"&wr={slot.wr:#x}")
    parts.append(f"?trans{slot.stall}" if slot.yield_ else f"?WAIT{slot.stall}_END_GROUP")
    return " ".join(parts)


_ANN = re.compile(r"&req=\{([\d,\s]*)\}|&rd=(\w+)|&wr=(\w+)|\?trans(\d+)|\?WAIT(\d+)_END_GROUP",
                  re.I)


def parse_annotations(text: str, base: Slot | None = None) -> Slot:
    values = slot_as_dict(base or Slot())
    values["yield_"] = values.pop("yield")
    pos = 0
    text = text.strip()
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        m = _ANN.match(text, pos)
        if not m:
            raise SassError(f"unknown scheduling annotation at {text[pos:]!r} (expected "
                            f"&req={{i,...}}, &rd=N, &wr=N, ?transN or ?WAITN_END_GROUP)")
        req, rd, wr, trans, wait_end = m.groups()
        try:
            if req is not None:
                idx = [int(x) for x in req.replace(" ", "").split(",") if x]
                if any(not 0 <= i <= 5 for i in idx):
                    raise SassError(f"&req={{{req}}}: scoreboards are 0..5")
                values["wait"] = sum(1 << i for i in set(idx))
            elif rd is not None or wr is not None:
                v = int(rd if rd is not None else wr, 0)
                if not 0 <= v <= 5:
                    raise SassError(f"{m.group(0)}: scoreboards are 0..5")
                values["rd" if rd is not None else "wr"] = v
            else:
                stall = int(trans if trans is not None else wait_end)
                if not 0 <= stall <= 15:
                    raise SassError(f"{m.group(0)}: stall is 0..15")
                values["stall"], values["yield_"] = stall, int(trans is not None)
        except SassError:
            raise
        except ValueError:
            raise SassError(f"bad number in scheduling annotation {m.group(0)!r}") from None
        pos = m.end()
    return Slot(**values)
