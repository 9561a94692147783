"""Instruction records: what the PTX ISA says an instruction's opcode and operands may be.

An instruction (`ld`, `add`, `cp.async.bulk.tensor`, …) is one `InstructionSpec`: its dotted
name, the ISA section, its qualifier groups in the canonical order of the ISA's syntax template,
and its forms. A group is one slot of the opcode (`.space`, `.type`, `.rnd`, …) with the values
it may take. Groups that share values are filled in the order the opcode writes them: `cvt`'s
`.dtype` and `.atype`, `mma`'s two layouts and four types (PTX writes them positionally).

A `Form` is one syntax line of the ISA, written as the ISA writes it:

    Form("{.rnd}{.ftz}{.sat}.f32", "d, a, b")      # add{.rnd}{.ftz}{.sat}.f32 d, a, b;

In the template, `.name` is a required slot when `name` is a group of the record (any value of
the group, or the values `where` allows), else a literal value that must be written (its group
is found from the value); `{...}` makes a slot optional. ptxas accepts qualifiers in any order,
so a form is a set of slot requirements, not a sequence. The operand list names roles defined in
`operands` (`"a": "reg|imm:type"`: a register or an immediate of the type in slot `type`); see
`OperandSpec` for that little language.

`ptxld.spec.decode` reads an opcode against these records; the checker matches decoded opcodes
against forms and their gates; the differential test generator builds its cases from them.
"""
from __future__ import annotations

import re

from .. import patterns
from .gates import Gate


# The classes below are plain slotted classes, not dataclasses: every `ptxld check` reads them,
# and a dataclass costs start-up time.

class Group:
    """One qualifier slot: its name, the values it may take (with their leading dot), and an
    optional sentence per value for `ptxld explain`. `repeatable`: ptxas takes the same value
    written twice in some groups (`add.sat.s32.sat`, `.sync.sync`) and refuses it in others
    (`.ftz.ftz`: "Duplicate .ftz modifier")."""
    __slots__ = ("name", "values", "describe", "repeatable")

    def __init__(self, name: str, values: tuple[str, ...], describe: dict | None = None, *,
                 repeatable: bool = False):
        self.name, self.values, self.describe, self.repeatable = name, tuple(values), describe or {}, repeatable

    def __repr__(self) -> str:
        return f"Group({self.name!r}, {self.values!r})"


#: operand kinds: a register, an immediate, a predicate register (`!p` allowed where `npred`),
#: an address `[...]`, a brace vector of registers, a label, a function name, a parenthesised
#: list (call arguments), the sink `_`, a setp destination pair `p|q` (or a texture result `{...}|p`),
#: a special register, a texture address `[tex{, sampler}{, coordinates}]` and a surface address
#: `[surf{, coordinates}]` (the coordinate vector's size from a table of the record: `sizes`)
KINDS = frozenset({"reg", "imm", "pred", "npred", "addr", "vec", "label", "func", "params", "sink",
                   "pair", "sreg", "tex", "surf"})
_OPERAND = patterns.compile(r"^(?P<kinds>[a-z|]+)(?:=(?P<values>[\d|]+))?(?:%(?P<multiple>\d+))?"
                            r"(?::(?P<type>[.\w|]+)(?P<wide>\+)?)?(?:\*(?P<count>\w+))?$")


class OperandSpec:
    """What one operand may be: `kinds[=values][%multiple][:type][*count]`.

    `kinds` is `|`-separated (`reg|imm`); `type` names the slot whose value is the operand's type
    (`type`, `dtype`, …), or a literal type (`.u32`), or several literal types `.b32|.u32`, or a
    width class: `b32` (any register of 32 bits), `raw32` (a `.b32` register only), `int32` (a
    `.b32`, `.u32` or `.s32` register, and integer immediates: ptxas 13.0 refuses `.f16x2` and
    floating-point registers there, where a `.u32` operand of most instructions takes `.f16x2`); a `+`
    after it lets a register be wider than an integer or 16-bit type (the relaxed rule of ld, st
    and cvt, PTX ISA 9.4.1); `count` is the number of vector elements, a number or a slot name
    (`vec`: the `.v2/.v4` written), or a table of the record's `sizes` (`coords`: the sizes the
    geometry written allows). `write` marks a destination. `values` lists the only integers
    an immediate may be (`imm=128`: discard's size); `multiple` a number an immediate must be a
    multiple of (`imm%16`: a bulk copy's size)."""
    __slots__ = ("kinds", "type", "count", "write", "values", "wide", "multiple")

    def __init__(self, kinds: frozenset, type: str | None = None, count: str | None = None,
                 write: bool = False, values: tuple[int, ...] | None = None, wide: bool = False,
                 multiple: int | None = None):
        self.kinds, self.type, self.count, self.write = kinds, type, count, write
        self.values, self.wide, self.multiple = values, wide, multiple

    def __repr__(self) -> str:
        return f"OperandSpec({sorted(self.kinds)}, {self.type!r}, {self.count!r}, write={self.write})"

    @classmethod
    def parse(cls, text: str, *, write: bool = False) -> "OperandSpec":
        m = _OPERAND.match(text.strip())
        if m is None:
            raise ValueError(f"bad operand spec {text!r}")
        kinds = frozenset(m["kinds"].split("|"))
        unknown = kinds - KINDS
        if unknown:
            raise ValueError(f"operand spec {text!r}: unknown kind(s) {sorted(unknown)}")
        values = tuple(int(v) for v in m["values"].split("|")) if m["values"] else None
        multiple = int(m["multiple"]) if m["multiple"] else None
        return cls(kinds, m["type"], m["count"], write, values, bool(m["wide"]), multiple)


class Form:
    """One syntax line of the ISA: a template of slots, its operand list, its gate.

    `where` restricts a group named in the template to some of its values for this form
    (`where={"type": (".u16", ".u32")}`). `operands` lists role names, `{}` around trailing
    optional ones: `"d, a, b{, c}"`. `beyond_isa` marks a form ptxas 13.0 accepts that the PTX ISA
    text does not list, saying what the text requires (a warning; an error under --strict)."""
    __slots__ = ("template", "operands", "gate", "where", "note", "beyond_isa")

    def __init__(self, template: str, operands: str = "", gate: Gate | None = None,
                 where: dict | None = None, note: str = "", beyond_isa: str = ""):
        self.template, self.operands, self.gate, self.where, self.note = (
            template, operands, gate, where or {}, note)
        self.beyond_isa = beyond_isa

    def __repr__(self) -> str:
        return f"Form({self.template!r}, {self.operands!r})"


class Slot:
    """One slot requirement of a form: the group, the values allowed, whether it is required."""
    __slots__ = ("group", "values", "required")

    def __init__(self, group: str, values: frozenset, required: bool):
        self.group, self.values, self.required = group, values, required


class InstructionSpec:
    """One instruction: `name` as the ISA titles it (`ld`, `wmma.load`), its `section`, its
    `groups` in canonical order, its `forms`, `operands` (role -> spec text), `gates` (value ->
    Gate) and the `gate` of the instruction itself. `sizes` names the vector-size tables an
    operand's count may refer to: table -> (group, {value: the sizes allowed}), as the geometry
    of a texture instruction fixes its coordinate vector; a third item, {value: type}, gives the
    first element a type of its own (an array index). `slots_of` (value -> the groups it may
    fill, in canonical order) and `repeatable` are derived."""
    __slots__ = ("name", "section", "groups", "forms", "operands", "gates", "gate", "sizes", "slots_of",
                 "repeatable")

    def __init__(self, name: str, section: str, groups: tuple[Group, ...], forms: tuple[Form, ...] = (),
                 operands: dict | None = None, gates: dict | None = None, gate: Gate | None = None,
                 sizes: dict | None = None):
        self.name, self.section, self.groups, self.forms = name, section, tuple(groups), tuple(forms)
        self.operands, self.gates, self.gate = operands or {}, gates or {}, gate
        self.sizes = sizes or {}
        slots: dict[str, tuple[str, ...]] = {}
        for g in self.groups:
            for v in g.values:
                slots[v] = slots.get(v, ()) + (g.name,)
        self.slots_of = slots
        self.repeatable = frozenset(g.name for g in self.groups if g.repeatable)

    def __repr__(self) -> str:
        return f"InstructionSpec({self.name!r})"

    def group(self, name: str) -> Group:
        for g in self.groups:
            if g.name == name:
                return g
        raise KeyError(name)

    @property
    def group_names(self) -> tuple[str, ...]:
        return tuple(g.name for g in self.groups)

    def vector_sizes(self, count: str, d) -> tuple[int, ...] | None:
        """The element counts an operand of count `count` may have in a decoded opcode: a
        number, the `.vN` of a slot, or a `sizes` table read at its group's value (None: the
        opcode does not say)."""
        if count.isdigit():
            return (int(count),)
        table = self.sizes.get(count)
        if table is not None:
            group, counts = table[:2]
            return counts.get(d.get(group) or "")
        written = (d.get(count) or "")[2:]
        return (int(written),) if written.isdigit() else None

    # ---------------------------------------------------------------- forms, derived on demand
    def slots(self, form: Form) -> tuple[Slot, ...]:
        """The slot requirements of a form's template."""
        return _form_slots(self, form)

    def operand_roles(self, form: Form) -> tuple[tuple[str, OperandSpec, bool], ...]:
        """(role, spec, optional) of each operand of a form, in order."""
        return _form_operands(self, form)


# a template's parts: `{.a.b}` (optional values) or `.x` (a required value or group name)
_TEMPLATE_PART = patterns.compile(r"\{([^{}]*)\}|(\.[^.{}]+)|(\S)")


def _split_template(template: str) -> list[tuple[str, bool]]:
    """`{.rnd}{.ftz}.f32` -> [(".rnd", False), (".ftz", False), (".f32", True)]."""
    out = []
    t = template.strip()
    for optional, required, bad in _TEMPLATE_PART.findall(t):
        if bad:
            raise ValueError(f"bad form template {template!r} at {t[t.index(bad):]!r}")
        if required:
            out.append((required, True))
        else:
            out.extend(("." + part, False) for part in optional.split(".")[1:])
    return out


_SLOT_CACHE: dict = {}
_OPERAND_SPECS: dict = {}  # role text ("=reg:type") -> its OperandSpec (never changed once made)
_GROUP_VALUES: dict = {}  # record name -> {group name: frozenset of its values}


def _form_slots(spec: InstructionSpec, form: Form) -> tuple[Slot, ...]:
    key = (spec.name, form)
    got = _SLOT_CACHE.get(key)
    if got is not None:
        return got
    values_of = _GROUP_VALUES.get(spec.name)
    if values_of is None:
        values_of = _GROUP_VALUES[spec.name] = {g.name: frozenset(g.values) for g in spec.groups}
    slots: list[Slot] = []
    used: set = set()
    for item, required in _split_template(form.template):
        word = item[1:]
        if word in values_of:
            restricted = form.where.get(word)
            values = values_of[word] if restricted is None else frozenset(restricted)
            group = word
        else:
            groups = spec.slots_of.get(item)
            if not groups:
                raise ValueError(f"{spec.name}: form {form.template!r} names {item!r}, which is "
                                 "neither a group nor a value of one")
            # a value shared by positional groups fills the next one not yet used in this form
            group = next((g for g in groups if g not in used), groups[0])
            values = frozenset((item,))
        used.add(group)
        slots.append(Slot(group, values, required))
    out = tuple(slots)
    _SLOT_CACHE[key] = out
    return out


def _form_operands(spec: InstructionSpec, form: Form):
    key = ("ops", spec.name, form)
    got = _SLOT_CACHE.get(key)
    if got is not None:
        return got
    out = []
    text = form.operands.strip()
    optional = False
    for raw in re.split(r",", text.replace("{", ",{").replace("}", "},")) if text else []:
        raw = raw.strip()
        if not raw:
            continue
        if raw.startswith("{"):
            optional = True
            raw = raw[1:].strip()
        closing = raw.endswith("}")
        raw = raw.rstrip("}").strip()
        if raw:
            role = raw
            spec_text = spec.operands.get(role)
            if spec_text is None:
                raise ValueError(f"{spec.name}: form {form.template!r} uses operand {role!r}, "
                                 "which `operands` does not define")
            parsed = _OPERAND_SPECS.get(spec_text)
            if parsed is None:  # records repeat a few role texts in many forms: parse each once
                parsed = _OPERAND_SPECS[spec_text] = OperandSpec.parse(
                    spec_text.lstrip("="), write=spec_text.startswith("="))
            out.append((role, parsed, optional))
        if closing:
            optional = False
    result = tuple(out)
    _SLOT_CACHE[key] = result
    return result
