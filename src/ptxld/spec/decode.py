"""The one opcode decoder: a dotted opcode, read against the instruction records.

    d = decode("ld.global.nc.v4.f32")
    d.name              # "ld"           (the record: `wmma.load`, `cp.async.bulk.tensor`, ...)
    d.get("space")      # ".global"
    d.slots["vec"]      # (".v4", 12, 15): value and its span within the opcode
    d.types             # [".f32"]       every type written, in order

ptxas accepts the qualifiers of an instruction in any order, so modifiers are placed by value,
not by position; values that several groups share fill them in the order written (`cvt.f32.s32`:
`.dtype`, then `.atype`). A modifier outside the record's vocabulary is kept in `others`, a
group written twice in `repeated`, for the checker to report. An instruction with no record yet
is read with the generic vocabulary (state spaces, vector sizes, types); its other modifiers stay
in `others`, uninterpreted.

Decoding is cached per opcode string: real code repeats a handful of opcodes thousands of times.
"""
from __future__ import annotations

from .instructions import names as record_names, spec_of
from .opcodes import DOTTED_NAMES
from .isa import Group, InstructionSpec
from .types import TYPES

STATE_SPACES = (".const", ".global", ".local", ".param", ".param::entry", ".param::func",
                ".shared", ".shared::cta", ".shared::cluster")
VECTORS = (".v2", ".v4", ".v8")
_TYPE_NAMES = tuple(TYPES)

#: The vocabulary of an instruction without a record of its own.
GENERIC = InstructionSpec("", "", (
    Group("space", STATE_SPACES), Group("vec", VECTORS),
    Group("type", _TYPE_NAMES), Group("type2", _TYPE_NAMES), Group("type3", _TYPE_NAMES),
    Group("type4", _TYPE_NAMES), Group("type5", _TYPE_NAMES)))


# `Decoded(..., spec=RECORD_OF_NAME)`: the record of the decoded name, read when first asked for
# (an opcode the checker's cache decoded in an earlier run: importing the module of its record
# costs more than everything else done with most opcodes)
RECORD_OF_NAME = object()


class Decoded:
    """One opcode, read. Spans are (start, end) character offsets within the opcode."""
    __slots__ = ("opcode", "mnemonic", "name", "_spec", "name_end", "modifiers", "slots", "others",
                 "repeated")

    def __init__(self, opcode: str, name: str, spec, name_end: int):
        self.opcode = opcode
        self.mnemonic = opcode.partition(".")[0]
        self.name = name
        self._spec = spec                # None: no record (generic vocabulary)
        self.name_end = name_end
        # every modifier after the name: (text, start, end, group or None), in written order
        self.modifiers: list[tuple[str, int, int, str | None]] = []
        self.slots: dict[str, tuple[str, int, int]] = {}
        self.others: list[tuple[str, int, int]] = []
        self.repeated: list[tuple[str, str, int, int]] = []

    @property
    def spec(self) -> InstructionSpec | None:
        """The instruction's record, or None (read with the generic vocabulary)."""
        spec = self._spec
        if spec is RECORD_OF_NAME:
            spec = self._spec = spec_of(self.name)
        return spec

    def get(self, group: str) -> str | None:
        q = self.slots.get(group)
        return q[0] if q else None

    def has(self, value: str) -> bool:
        """Whether the opcode writes this modifier (e.g. `.sync`), in any slot."""
        return any(m[0] == value for m in self.modifiers)

    def pick(self, *values: str) -> str | None:
        """The first modifier written that is one of `values` (`pick(".up", ".down")`), or None:
        the same answer whether the instruction has a record yet or is read generically."""
        for m in self.modifiers:
            if m[0] in values:
                return m[0]
        return None

    @property
    def types(self) -> list[str]:
        """Every modifier that names a type, in written order (`cvt.rn.f32.s32` -> f32, s32)."""
        return [m[0] for m in self.modifiers if m[0] in TYPES]

    @property
    def known(self) -> bool:
        return self.spec is not None

    def __repr__(self) -> str:
        return f"Decoded({self.opcode!r}, name={self.name!r}, slots={ {g: v[0] for g, v in self.slots.items()} })"


# the most dotted parts a record's name has, by its first part (`cp` 5: cp.reduce.async.bulk.tensor):
# a longer prefix of an opcode names no record
_MOST_PARTS: dict[str, int] = {}
for _name in record_names():
    _first = _name.split(".")[0]
    _MOST_PARTS[_first] = max(_MOST_PARTS.get(_first, 0), _name.count(".") + 1)


def _resolve(parts: list[str]) -> tuple[str, InstructionSpec | None, int]:
    """The longest dotted prefix that names a record: (name, record, number of parts). A longer
    prefix that is an instruction of its own without a record yet (`barrier.cluster`, `st.async`)
    is read generically rather than as its namesake (`barrier`, `st`) with unknown modifiers."""
    for k in range(min(len(parts), _MOST_PARTS.get(parts[0], 0)), 0, -1):
        name = ".".join(parts[:k])
        spec = spec_of(name)
        if spec is not None:
            if k < len(parts) and "." + parts[k] not in spec.slots_of:
                longer = name + "." + parts[k]
                if longer in DOTTED_NAMES:
                    return longer, None, k + 1
            return name, spec, k
    return parts[0], None, 1


def _decode(opcode: str) -> Decoded:
    parts = opcode.split(".")
    name, spec, k = _resolve(parts)
    pos = len(name)
    d = Decoded(opcode, name, spec, pos)
    vocabulary = (spec or GENERIC).slots_of
    repeatable = (spec or GENERIC).repeatable
    slots = d.slots
    for p in parts[k:]:
        text, s, e = "." + p, pos, pos + 1 + len(p)
        pos = e
        groups = vocabulary.get(text)
        if groups is None:
            d.others.append((text, s, e))
            d.modifiers.append((text, s, e, None))
            continue
        for g in groups:
            if g not in slots:
                slots[g] = (text, s, e)
                d.modifiers.append((text, s, e, g))
                break
        else:
            g = groups[0]
            if not (g in repeatable and slots[g][0] == text):
                d.repeated.append((g, text, s, e))
            d.modifiers.append((text, s, e, g))
    return d


_CACHE: dict[str, Decoded] = {}


def decode(opcode: str) -> Decoded:
    """The decoded opcode (cached; do not mutate the result)."""
    got = _CACHE.get(opcode)
    if got is None:
        if len(_CACHE) >= 8192:  # garbage input can spell endless opcodes
            _CACHE.clear()
        got = _CACHE[opcode] = _decode(opcode)
    return got


def cached(opcode: str) -> Decoded | None:
    """The decoded opcode if it was decoded in this process, or None."""
    return _CACHE.get(opcode)


def remember(d: Decoded) -> None:
    """Take an opcode decoded by an earlier run (the checker's cache keeps them across runs)."""
    if len(_CACHE) >= 8192:
        _CACHE.clear()
    _CACHE[d.opcode] = d
