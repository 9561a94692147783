"""What every fragment layout object shares (the wmma ones and the mma.sync / ldmatrix / wgmma
ones): index arrays ``rows[thread, reg, slot]`` and ``cols[...]`` naming the matrix element each
(thread, register, slot) holds."""
from __future__ import annotations


class ElementArrays:
    """Mixin over ``rows``/``cols`` arrays of shape (threads, registers, slots per register)."""
    __slots__ = ()

    @property
    def threads(self) -> int:
        return self.rows.shape[0]

    @property
    def nregs(self) -> int:
        return self.rows.shape[1]

    @property
    def slots(self) -> int:
        return self.rows.shape[2]

    def element(self, lane: int, reg: int, slot: int = 0) -> tuple[int, int]:
        return int(self.rows[lane, reg, slot]), int(self.cols[lane, reg, slot])
