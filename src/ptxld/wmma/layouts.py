"""Fragment layouts: which matrix element each (lane, register, slot) of a fragment holds.

The PTX ISA leaves the lane ↔ element assignment unspecified and architecture dependent; it is
fixed by the SASS architecture the code finally runs on. ptxld therefore keeps one layout object
per (target family, shape, matrix, type, memory layout), each labelled with where its mapping
comes from (``basis`` and ``provenance``):

* ``"hardware"`` — the f16 ``.m16n16k16`` A/B/C and tf32 ``.m16n16k8`` A/B mappings of sm_75
  and sm_80+, from wmmae/wmma_extension (``detail/sm_75.hpp``, ``sm_80.hpp``, the tf32 file),
  whose tests compare them with fragments made by ``nvcuda::wmma::load_matrix_sync`` on GPUs.
* ``"reported"`` — Volta (sm_70/sm_72) f16 ``.m16n16k16``: wmmae ``sm_70.hpp`` and GPGPU-Sim's
  profiled tables; they agree on A and C and differ in one lane bit for B (wmmae's, the
  self-consistent one, is used). Not confirmed on silicon.
* ``"ptxld choice"`` — everything else. The choice composes the fragment from the 8-row
  subtiles of the PTX ISA ``mma.sync`` fragment layouts (``m16n8k16``, ``m16n8k32``,
  ``m16n8k8``, ``m8n8k32``, ``m8n8k128``, ``m8n8k4`` .f64), which is exactly how the known
  hardware mappings are built; it reproduces every "hardware" mapping above.

A *slot* is the position of an element inside a 32/64-bit register, slot 0 in the lowest bits.
Notation in formulas: lane L, g = L >> 2, t = L & 3.

No other module does fragment index arithmetic: they use ``rows``/``cols`` (NumPy arrays of
shape (32, nregs, slots)), ``gather``/``scatter`` and ``owner`` from these objects.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from ptxld.spec import wmma as spec
from ptxld.wmma.element_arrays import ElementArrays
from ptxld.wmma.errors import WmmaError

#: Target families with distinct layout tables.
FAMILIES = ("sm_70", "sm_75", "sm_80")

_HW_TURING_AMPERE = ("wmmae/wmma_extension detail/{file} foreach_ij (commit a9e6b34), tested "
                     "against nvcuda::wmma::load_matrix_sync on GPUs")
_CHOICE = ("composed of PTX ISA mma.sync 8-row subtiles (A/C: lane holds row g, "
           "columns from t; B: column g, rows from t; subtiles in column-major order for A/C, "
           "k-fastest for B); the hardware mapping is not publicly known")
_VOLTA = ("wmmae/wmma_extension detail/sm_70.hpp foreach_ij and GPGPU-Sim "
          "thread_group_offset/acc_float_offset (profiled) agree; not confirmed on silicon")
_VOLTA_B = ("wmmae/wmma_extension detail/sm_70.hpp foreach_ij; GPGPU-Sim uses lane bit 2 where "
            "wmmae uses bit 3 (wmmae is the one consistent with the C tiles); unconfirmed")


def target_family(target: str | int) -> str:
    """``"sm_70"``/``"sm_72"`` → ``"sm_70"``; ``"sm_75"`` → ``"sm_75"``; sm_80 and later
    (``"sm_90a"``, ``"sm_100f"``, ``compute_XX`` …) → ``"sm_80"``."""
    if isinstance(target, int):
        number = target
    else:
        m = re.fullmatch(r"(?:sm|compute)_(\d+)[a-z]?", str(target).strip())
        if not m:
            raise WmmaError(f"unknown target {target!r} (expected e.g. 'sm_80')")
        number = int(m.group(1))
    if number < 70:
        raise WmmaError(f"wmma needs sm_70 or later, not sm_{number}")
    return "sm_70" if number < 75 else "sm_75" if number < 80 else "sm_80"


@dataclass(frozen=True, eq=False)
class FragmentLayout(ElementArrays):
    """The map (lane, register, slot) ↔ matrix element (row, col) of one fragment.

    ``rows[lane, reg, slot]`` and ``cols[...]`` give the element; for B, row = k and col = n.
    Every element is held at least once; with ``replication`` > 1 it is held that many times
    and all copies must agree."""

    family: str
    shape: str
    matrix: str
    type: str
    layout: str  # memory layout ("row"/"col"); C/D mappings do not depend on it
    basis: str  # "hardware" | "reported" | "ptxld choice"
    provenance: str
    rows: np.ndarray
    cols: np.ndarray

    @property
    def spec(self) -> spec.FragmentSpec:
        return spec.fragment(self.shape, self.matrix, self.type)

    @property
    def dims(self) -> tuple[int, int]:
        return self.spec.dims

    @property
    def replication(self) -> int:
        return self.spec.replication

    @property
    def name(self) -> str:
        return f"{self.family} .{self.matrix} .{self.layout} .{self.shape} .{self.type}"

    def holders(self, row: int, col: int) -> list[tuple[int, int, int]]:
        """Every (lane, reg, slot) that holds element (row, col)."""
        hit = np.argwhere((self.rows == row) & (self.cols == col))
        return [tuple(int(v) for v in h) for h in hit]

    @cached_property
    def flat(self) -> np.ndarray:
        """Row-major element index ``row * ncols + col`` per (lane, reg, slot)."""
        return self.rows.astype(np.int64) * self.dims[1] + self.cols

    @cached_property
    def owner(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(lane, reg, slot) arrays of shape (rows, cols): the first holder of each element
        (lowest register, then lowest lane, then slot) — the copy ``scatter`` reads."""
        lane, reg, slot = np.indices(self.rows.shape)
        rank = ((reg * 32 + lane) * self.slots + slot).ravel()
        best = np.full(self.dims[0] * self.dims[1], rank.max() + 1, np.int64)
        np.minimum.at(best, self.flat.ravel(), rank)
        best = best.reshape(self.dims)
        rest, slot_of = np.divmod(best, self.slots)
        reg_of, lane_of = np.divmod(rest, 32)
        return lane_of, reg_of, slot_of

    def gather(self, matrix: np.ndarray) -> np.ndarray:
        """Fragment values (32, nregs, slots) taken from a (rows, cols) matrix."""
        return matrix[self.rows, self.cols]

    def scatter(self, values: np.ndarray, *, check_replicas: bool = True) -> np.ndarray:
        """The (rows, cols) matrix held by fragment values (32, nregs, slots).

        With ``check_replicas`` every copy of a replicated element must equal the owner's copy
        (compared as given, so pass raw bit patterns); otherwise ``WmmaError``."""
        lane, reg, slot = self.owner
        matrix = values[lane, reg, slot]
        if check_replicas and self.replication > 1:
            bad = np.argwhere(values != matrix[self.rows, self.cols])
            if len(bad):
                ln, rg, sl = (int(v) for v in bad[0])
                r, c = self.element(ln, rg, sl)
                olane, oreg = int(lane[r, c]), int(reg[r, c])
                raise WmmaError(
                    f"replicated fragment copies disagree ({self.name}): element ({r},{c}) in "
                    f"lane {ln} register {rg} differs from lane {olane} register {oreg} "
                    f"({len(bad)} differing copies); fragments may only be changed uniformly")
        return matrix

    def _validate(self) -> None:
        rows, cols = self.dims
        nelem = rows * cols
        counts = np.bincount(self.flat.ravel(), minlength=nelem)
        if counts.shape[0] != nelem or not (counts == self.replication).all():
            raise RuntimeError(f"layout {self.name} does not cover every element "
                               f"{self.replication} times")


# --------------------------------------------------------------------------------------------
# Builders: each returns (rows, cols) arrays of shape (32, nregs, slots).

_LANE = np.arange(32).reshape(32, 1, 1)
_G, _T = _LANE >> 2, _LANE & 3


def _bit(k: int) -> np.ndarray:
    return (_LANE >> k) & 1


def _grid(fs: spec.FragmentSpec) -> tuple[np.ndarray, np.ndarray]:
    """Register and slot index arrays broadcastable to (32, nregs, slots)."""
    reg = np.arange(fs.nregs).reshape(1, -1, 1)
    slot = np.arange(fs.elements_per_register).reshape(1, 1, -1)
    return reg, slot


def _tiled(fs: spec.FragmentSpec) -> tuple[np.ndarray, np.ndarray]:
    """The mma-subtile composition (see module docstring)."""
    m, n, k = spec.SHAPES[fs.shape]
    reg, slot = _grid(fs)
    if fs.matrix in "cd":
        # 8×8 subtiles, lane holds (g, 2t), (g, 2t+1); x = element index in the lane.
        x = reg * fs.elements_per_register + slot
        tile, pair = x >> 1, x & 1
        row_tiles = m // 8
        return 8 * (tile % row_tiles) + _G, 8 * (tile // row_tiles) + 2 * _T + pair
    epr = fs.elements_per_register
    width = 4 * epr  # subtile: 8 lines × (4 lanes · epr) elements, one register per lane
    if fs.matrix == "a":
        row_tiles, col_tiles = m // 8, k // width
        tile = reg % (row_tiles * col_tiles)  # registers past the unique ones repeat
        return 8 * (tile % row_tiles) + _G, width * (tile // row_tiles) + epr * _T + slot
    k_tiles, n_tiles = k // width, n // 8
    tile = reg % (k_tiles * n_tiles)
    return width * (tile % k_tiles) + epr * _T + slot, 8 * (tile // k_tiles) + _G


def _volta_f16_m16n16k16(fs: spec.FragmentSpec, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """The sm_70 layout of m16n16k16 fragments (x = reg·2 + slot for 16-bit values, x = reg for f32)."""
    reg, slot = _grid(fs)
    x = reg * fs.elements_per_register + slot
    l1, l2, l3, l4 = _bit(1), _bit(2), _bit(3), _bit(4)
    if fs.matrix == "a":
        if layout == "row":
            return _T + 8 * l2 + 4 * l4 + 0 * x, x + 0 * _LANE
        return 8 * l2 + 4 * l4 + (x & 3), _T + 4 * (x >> 2)
    if fs.matrix == "b":
        if layout == "row":
            return _T + 4 * (x >> 2), 8 * l3 + 4 * l4 + (x & 3)
        return x + 0 * _LANE, _T + 8 * l3 + 4 * l4 + 0 * x
    if fs.type == "f16":
        return _T + 8 * l2 + 4 * l4 + 0 * x, 8 * l3 + x
    return ((_LANE & 1) + 2 * ((x >> 1) & 1) + 8 * l2 + 4 * l4,
            2 * l1 + (x & 1) + 4 * (x >> 2) + 8 * l3)


def _choose(family: str, fs: spec.FragmentSpec, layout: str):
    """(basis, provenance, builder) for one fragment on one family."""
    if family == "sm_70" and fs.shape == "m16n16k16" and fs.type in ("f16", "f32"):
        prov = _VOLTA_B if fs.matrix == "b" else _VOLTA
        return "reported", prov, lambda: _volta_f16_m16n16k16(fs, layout)
    if family in ("sm_75", "sm_80"):
        hw_file = "sm_75.hpp" if family == "sm_75" else "sm_80.hpp"
        if fs.shape == "m16n16k16" and fs.type in ("f16", "f32"):
            return "hardware", _HW_TURING_AMPERE.format(file=hw_file), lambda: _tiled(fs)
        if family == "sm_80" and fs.shape == "m16n16k8" and fs.matrix in "ab":
            return ("hardware", _HW_TURING_AMPERE.format(file="sm_80_tf32.hpp"),
                    lambda: _tiled(fs))
        if family == "sm_80" and fs.shape == "m16n16k8":
            return ("ptxld choice", "the m16n16k16 f32 accumulator hardware "
                    "mapping (wmmae sm_80.hpp), assumed to carry over to m16n16k8",
                    lambda: _tiled(fs))
    return "ptxld choice", _CHOICE, lambda: _tiled(fs)


@lru_cache(maxsize=None)
def fragment_layout(target: str | int, shape: str, matrix: str, type: str,
                    layout: str) -> FragmentLayout:
    """The layout object of a fragment on a target (``"sm_80"``, ``"sm_90a"``, 86, ...)."""
    family = target_family(target)
    try:
        fs = spec.fragment(shape, matrix, type)
    except KeyError as e:
        raise WmmaError(e.args[0]) from None
    if layout not in fs.layouts:
        raise WmmaError(f"wmma .{matrix} .{shape} .{type} cannot be .{layout} "
                        f"(allowed: {', '.join('.' + x for x in fs.layouts)})")
    min_family = target_family(fs.gate.min_sm)
    if FAMILIES.index(family) < FAMILIES.index(min_family):
        raise WmmaError(f"wmma .{matrix} .{shape} .{type} needs sm_{fs.gate.min_sm} or later "
                        f"(target {target})")
    basis, provenance, build = _choose(family, fs, layout)
    shape3 = (32, fs.nregs, fs.elements_per_register)
    rows, cols = (np.broadcast_to(a, shape3).astype(np.int16) for a in build())
    for arr in (rows, cols):
        arr.setflags(write=False)
    obj = FragmentLayout(family, shape, matrix, type, layout, basis, provenance, rows, cols)
    obj._validate()
    return obj


def all_layouts() -> list[FragmentLayout]:
    """Every layout object of every family (for tests, docs and the renderer)."""
    out = []
    for family in FAMILIES:
        for fs in spec.legal_combinations():
            if FAMILIES.index(family) < FAMILIES.index(target_family(fs.gate.min_sm)):
                continue
            for layout in fs.layouts:
                out.append(fragment_layout(family, fs.shape, fs.matrix, fs.type, layout))
    return out
