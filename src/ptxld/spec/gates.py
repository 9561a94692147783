"""Feature gates: the minimum PTX ISA version and target a feature needs (PTX ISA "PTX ISA Notes"
and "Target ISA Notes" of every instruction), one class for every instruction family."""
from __future__ import annotations


class Gate:
    """A feature's minimum PTX ISA version and minimum `sm_XX` target (None: any target), with
    the ISA sentence that states it and, where ptxas departs from it, a note saying how.

    ptxas 13.0 does not enforce every gate of the ISA text: a gate it leaves unchecked
    (`ptxas_checks_ptx`/`ptxas_checks_sm` False) is a rule of the ISA text only (a warning, an
    error under --strict). `only_targets` names the targets of an architecture- or
    family-specific feature (`wgmma`: sm_90a); `below_sm` (from PTX ISA `below_sm_from_ptx` on,
    when given) marks a feature removed on sm_<below_sm> and later (`vote` without `.sync`).
    A plain class, not a dataclass: the checker's start-up reads it."""
    __slots__ = ("min_ptx", "min_sm", "feature", "source", "note", "ptxas_checks_ptx",
                 "ptxas_checks_sm", "only_targets", "below_sm", "below_sm_from_ptx")

    def __init__(self, min_ptx: tuple[int, int] = (1, 0), min_sm: int | None = None, feature: str = "",
                 source: str = "", note: str = "", *, ptxas_checks_ptx: bool = True,
                 ptxas_checks_sm: bool = True, only_targets: tuple[str, ...] = (),
                 below_sm: int | None = None, below_sm_from_ptx: tuple[int, int] | None = None):
        self.min_ptx, self.min_sm, self.feature, self.source, self.note = min_ptx, min_sm, feature, source, note
        self.ptxas_checks_ptx, self.ptxas_checks_sm = ptxas_checks_ptx, ptxas_checks_sm
        self.only_targets, self.below_sm, self.below_sm_from_ptx = only_targets, below_sm, below_sm_from_ptx

    def _key(self):
        return tuple(getattr(self, k) for k in self.__slots__)

    def __eq__(self, other):
        return isinstance(other, Gate) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Gate({self.min_ptx}, {self.min_sm}, {self.feature!r})"

    def __str__(self) -> str:
        sm = f", sm_{self.min_sm}" if self.min_sm else ""
        return f"PTX ISA {self.min_ptx[0]}.{self.min_ptx[1]}{sm}"

    def join(self, other: "Gate") -> "Gate":
        """The stricter of two gates (both must hold)."""
        return Gate(max(self.min_ptx, other.min_ptx), max(self.min_sm or 0, other.min_sm or 0) or None,
                    self.feature or other.feature)

    def violations(self, ptx: tuple[int, int], sm: int | None) -> list[str]:
        """What a module of this version and target lacks, in words (empty: the gate holds)."""
        out = []
        if tuple(ptx) < self.min_ptx:
            out.append(f"needs PTX ISA {self.min_ptx[0]}.{self.min_ptx[1]} or later")
        if self.min_sm and sm is not None and sm < self.min_sm:
            out.append(f"needs sm_{self.min_sm} or later")
        return out
