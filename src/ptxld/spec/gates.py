"""Feature gates: the minimum PTX ISA version and target a feature needs (PTX ISA "PTX ISA Notes"
and "Target ISA Notes" of every instruction), one class for every instruction family."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Gate:
    """A feature's minimum PTX ISA version and minimum `sm_XX` target (None: any target), with
    the ISA sentence that states it and, where ptxas departs from it, a note saying how."""
    min_ptx: tuple[int, int] = (1, 0)
    min_sm: int | None = None
    feature: str = ""
    source: str = ""
    note: str = ""
    # ptxas 13.0 does not enforce every gate of the ISA text: a gate it leaves unchecked is a
    # rule of the ISA text only (a warning, an error under --strict)
    ptxas_checks_ptx: bool = True
    ptxas_checks_sm: bool = True
    # architecture- or family-specific features (`wgmma`: sm_90a only): the targets allowed
    only_targets: tuple[str, ...] = ()
    # removed features: not on sm_<below_sm> and later (from PTX ISA <below_sm_from_ptx> on,
    # when given) - e.g. `vote` without `.sync`
    below_sm: int | None = None
    below_sm_from_ptx: tuple[int, int] | None = None

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
