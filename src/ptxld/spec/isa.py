"""Instruction records: what the PTX ISA says an instruction's opcode may carry.

An instruction (`ld`, `wmma.load`, `cp.async.bulk.tensor`, …) is one `InstructionSpec`: its
dotted name, the ISA section, and its qualifier groups in the canonical order of the ISA's syntax
template. A group is one slot of the opcode (`.space`, `.type`, `.rnd`, …) with the values it
may take. Groups that share values are filled in the order the opcode writes them: `cvt`'s
`.dtype` and `.atype`, `mma`'s two layouts and four types (PTX writes them positionally).

`ptxld.spec.decode` reads an opcode against these records; every other part of ptxld reads the
decoded slots and never splits an opcode itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Group:
    """One qualifier slot: its name, the values it may take (with their leading dot), and an
    optional sentence per value for `ptxld explain`."""
    name: str
    values: tuple[str, ...]
    describe: dict = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class InstructionSpec:
    name: str                      # dotted name as the ISA titles it: "ld", "wmma.load"
    section: str                   # "PTX ISA 9.7.9.8 (ld)"
    groups: tuple[Group, ...]      # canonical order
    # value -> the groups it may fill, in canonical order (derived)
    slots_of: dict = field(init=False, compare=False, hash=False, repr=False)

    def __post_init__(self):
        slots: dict[str, tuple[str, ...]] = {}
        for g in self.groups:
            for v in g.values:
                slots[v] = slots.get(v, ()) + (g.name,)
        object.__setattr__(self, "slots_of", slots)

    def group(self, name: str) -> Group:
        for g in self.groups:
            if g.name == name:
                return g
        raise KeyError(name)

    @property
    def group_names(self) -> tuple[str, ...]:
        return tuple(g.name for g in self.groups)
