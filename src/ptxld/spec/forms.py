"""Which forms of its record a decoded opcode matches, and how far it is from the nearest one.

A decoded opcode matches a form when every required slot of the form is written with a value the
form allows, every optional slot written has such a value, and no group is written that the form
does not name.
"""
from __future__ import annotations

from .decode import Decoded
from .isa import Form, InstructionSpec


class Mismatch:
    """How a decoded opcode differs from one form: slots missing (group names), written but not
    in the form, or written with a value the form does not allow ((group, value) pairs)."""
    __slots__ = ("form", "missing", "extra", "wrong")

    def __init__(self, form: Form, missing: tuple, extra: tuple, wrong: tuple):
        self.form, self.missing, self.extra, self.wrong = form, missing, extra, wrong

    @property
    def distance(self) -> int:
        return len(self.missing) + len(self.extra) + len(self.wrong)


def mismatch(spec: InstructionSpec, form: Form, d: Decoded) -> Mismatch:
    slots = spec.slots(form)
    named = {s.group for s in slots}
    missing, wrong = [], []
    for s in slots:
        written = d.slots.get(s.group)
        if written is None:
            if s.required:
                missing.append(s.group)
        elif written[0] not in s.values:
            wrong.append((s.group, written[0]))
    extra = [(g, v[0]) for g, v in d.slots.items() if g not in named]
    return Mismatch(form, tuple(missing), tuple(extra), tuple(wrong))


_MATCHES: dict = {}
# opcode -> the numbers of its matching forms, kept by an earlier run (`remember_numbers`)
_NUMBERS: dict = {}
_SHAPES: dict = {}


def _shape(spec: InstructionSpec, form: Form) -> tuple[dict, frozenset]:
    """A form's slots as ({group: the values it allows}, the groups it requires)."""
    key = (spec.name, form)
    got = _SHAPES.get(key)
    if got is None:
        allowed: dict = {}
        required = set()
        for s in spec.slots(form):
            allowed[s.group] = allowed[s.group] & s.values if s.group in allowed else s.values
            if s.required:
                required.add(s.group)
        got = _SHAPES[key] = (allowed, frozenset(required))
    return got


def _matches(spec: InstructionSpec, form: Form, d: Decoded) -> bool:
    """`mismatch(spec, form, d).distance == 0`, without building the differences (every
    distinct opcode of a module is matched against each form of its record once)."""
    allowed, required = _shape(spec, form)
    written = d.slots
    if not written.keys() >= required:
        return False
    for group, w in written.items():
        values = allowed.get(group)
        if values is None or w[0] not in values:
            return False
    return True


def matching_forms(d: Decoded) -> tuple[Form, ...]:
    """The forms of the opcode's record it matches (empty: none, or the record has no forms)."""
    got = _MATCHES.get(d.opcode)
    if got is None:
        spec = d.spec
        got = _numbered(spec, _NUMBERS.pop(d.opcode, None))
        if got is None:
            got = tuple(f for f in spec.forms if _matches(spec, f, d)) if spec else ()
        if len(_MATCHES) >= 8192:
            _MATCHES.clear()
        _MATCHES[d.opcode] = got
    return got


def _numbered(spec: InstructionSpec | None, numbers) -> tuple[Form, ...] | None:
    """The record's forms of these numbers; None where they are not numbers of its forms."""
    if numbers is None or spec is None:
        return None
    forms = spec.forms
    if not all(isinstance(i, int) and 0 <= i < len(forms) for i in numbers):
        return None
    return tuple(forms[i] for i in numbers)


def cached(opcode: str) -> tuple[Form, ...] | None:
    """The forms `matching_forms` found for an opcode in this process, or None."""
    return _MATCHES.get(opcode)


def remember_numbers(opcode: str, numbers: tuple[int, ...]) -> None:
    """Take the matching forms of an opcode worked out by an earlier run (the checker's cache),
    by their numbers in the record (`spec.forms`): read when the forms are first asked for
    (reading them needs the record, whose module may not be loaded yet)."""
    if len(_NUMBERS) >= 8192:
        _NUMBERS.clear()
    _NUMBERS[opcode] = numbers


def nearest(d: Decoded) -> Mismatch | None:
    """The form the opcode is closest to (fewest differences; the first such in ISA order)."""
    spec = d.spec
    if spec is None or not spec.forms:
        return None
    # among equally near forms, one that lacks a slot beats one that refuses a value written
    # (`rcp.approx.f64`: needs `.ftz`, as ptxas says, rather than "no .f64 here")
    return min((mismatch(spec, f, d) for f in spec.forms),
               key=lambda m: (m.distance, len(m.extra) + len(m.wrong)))


def spelled(spec: InstructionSpec, form: Form) -> str:
    """A form as the ISA writes it: `add{.rnd}{.ftz}{.sat}.f32 d, a, b`."""
    return f"{spec.name}{form.template} {form.operands}".strip()
