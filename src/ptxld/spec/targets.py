"""PTX ISA versions and the targets each admits (PTX ISA §11.1.2, §13 release table).

Source: the PTX ISA release notes (the .target table of each version).
"""
from __future__ import annotations

from .. import patterns
from ..slotted import Record

# PTX version -> targets introduced by it.
TARGETS_ADDED: dict[tuple[int, int], tuple[str, ...]] = {
    (1, 0): ("sm_10", "sm_11"), (1, 2): ("sm_12", "sm_13"), (2, 0): ("sm_20",),
    (3, 0): ("sm_30",), (3, 1): ("sm_35",), (4, 0): ("sm_32", "sm_50"), (4, 1): ("sm_37", "sm_52"),
    (4, 2): ("sm_53",), (5, 0): ("sm_60", "sm_61", "sm_62"), (6, 0): ("sm_70",), (6, 1): ("sm_72",),
    (6, 3): ("sm_75",), (7, 0): ("sm_80",), (7, 1): ("sm_86",), (7, 4): ("sm_87",),
    (7, 8): ("sm_89", "sm_90"), (8, 0): ("sm_90a",),
    (8, 6): ("sm_100", "sm_100a", "sm_101", "sm_101a"), (8, 7): ("sm_120", "sm_120a"),
    (8, 8): ("sm_100f", "sm_101f", "sm_103", "sm_103f", "sm_103a", "sm_120f", "sm_121", "sm_121f",
             "sm_121a"),
    (9, 0): ("sm_88", "sm_110", "sm_110f", "sm_110a"),
    (9, 4): ("sm_107", "sm_107f", "sm_107a"),
}
PTX_VERSIONS: tuple[tuple[int, int], ...] = (
    (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (2, 0), (2, 1), (2, 2), (2, 3), (3, 0), (3, 1),
    (3, 2), (4, 0), (4, 1), (4, 2), (4, 3), (5, 0), (6, 0), (6, 1), (6, 2), (6, 3), (6, 4), (6, 5),
    (7, 0), (7, 1), (7, 2), (7, 3), (7, 4), (7, 5), (7, 6), (7, 7), (7, 8), (8, 0), (8, 1), (8, 2),
    (8, 3), (8, 4), (8, 5), (8, 6), (8, 7), (8, 8), (9, 0), (9, 1), (9, 2), (9, 3), (9, 4),
)
LATEST_PTAS_VERSION = (9, 0)  # newest .version ptxas 13.0 accepts
# The target `explain` checks an instruction for, and whose wmma fragment layouts the `wmma`
# commands show, when none is named: the newest ptxas 13.0 knows, so that a load is described
# with what it needs instead of being refused for an older GPU.
DEFAULT_TARGET = "sm_100a"
# sm_101* were renamed sm_110* from PTX 9.0 on.
RENAMED_FROM_9_0 = {"sm_101": "sm_110", "sm_101f": "sm_110f", "sm_101a": "sm_110a"}

TARGET_INTRODUCED: dict[str, tuple[int, int]] = {
    t: v for v, ts in TARGETS_ADDED.items() for t in ts
}
PLATFORM_OPTIONS: dict[str, tuple[int, int]] = {
    "texmode_unified": (1, 5), "texmode_independent": (1, 5), "debug": (3, 0), "map_f64_to_f32": (1, 0),
}

_TARGET_RE = patterns.compile(r"^(?:sm|compute)_(\d+)([af]?)$")


class Target(Record):
    """A parsed `.target` architecture: `sm_90a` -> number 90, suffix '' | 'a'
    (architecture-specific) | 'f' (family-specific)."""
    __slots__ = FIELDS = ("name", "number", "suffix")

    @property
    def family(self) -> int:
        return self.number // 10


def parse_target(name: str) -> Target | None:
    m = _TARGET_RE.match(name)
    if not m:
        return None
    return Target(name.replace("compute_", "sm_"), int(m.group(1)), m.group(2))


def target_min_version(name: str) -> tuple[int, int] | None:
    """The PTX version that introduced a target name (compute_XX is a synonym of sm_XX)."""
    return TARGET_INTRODUCED.get(name.replace("compute_", "sm_"))
