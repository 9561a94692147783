"""A picture of one warp's access for one source line (`ptxld run --show-access LINE`): lanes down
the side; for global/local memory the 32-byte sectors the warp touches across the top, for shared
memory the 32 banks. A cell is filled in the colour of the lane that touches it (the colours of
the wmma fragment pictures); for shared memory the bottom row counts the distinct words each bank
serves in the busiest phase (more than one: a bank conflict)."""
from __future__ import annotations

import colorsys
import struct
import zlib
from html import escape

import numpy as np

from ..wmma.render import lane_colour
from .coalescing import BANKS, SECTOR, WORD, expand


class AccessGrid:
    """Which lane touches which column: `cells[lane][col]` -> label or None."""

    def __init__(self, sample, line: int, instruction: str):
        lanes, addr, size, space = sample
        self.space, self.line, self.instruction = space, line, instruction
        self.shared = space == ".shared"
        unit = WORD if self.shared else SECTOR
        blocks, ln = expand(addr, size, unit, lanes)
        self.cells = [[None] * (BANKS if self.shared else 0) for _ in range(32)]
        if self.shared:
            self.columns = [f"b{b}" for b in range(BANKS)]
            s = max(int(np.max(size)), WORD)
            per_phase = max(1, min(32, 128 // s))
            self.conflict = [0] * BANKS
            for phase in range(32 // per_phase):
                sel = (ln // per_phase) == phase
                words = np.unique(blocks[sel])
                counts = np.bincount((words % BANKS).astype(np.int64), minlength=BANKS)
                self.conflict = [max(a, int(b)) for a, b in zip(self.conflict, counts)]
            base = int(blocks.min())
            for w, lane in zip(blocks.tolist(), ln.tolist()):
                self.cells[lane][w % BANKS] = f"w{w - base}"
        else:
            cols = sorted(set(blocks.tolist()))
            base = cols[0]
            self.columns = [f"+{(c - base) * SECTOR}" for c in cols]
            index = {c: i for i, c in enumerate(cols)}
            for row in self.cells:
                row.extend([None] * len(cols))
            for b, lane in zip(blocks.tolist(), ln.tolist()):
                self.cells[lane][index[b]] = "x"
            self.conflict = None
        self.active = sorted(set(lanes.tolist()))

    def title(self) -> str:
        what = (f"{len(self.columns)} sectors of 32 bytes (offsets from the first)" if not self.shared
                else f"shared banks; worst bank serves {max(self.conflict)} word(s) in one phase")
        return f"line {self.line}: {self.instruction} — {self.space}, {what}"


def access_svg(grid: AccessGrid) -> str:
    ncols = len(grid.columns)
    cw = 26 if ncols <= 48 else max(8, 1300 // ncols)
    ch = 16
    left, top = 40, 58
    rows = 32 + (1 if grid.shared else 0)
    width, height = max(left + ncols * cw + 10, 720), top + rows * ch + 40
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="monospace">',
             f'<title>{escape(grid.title())}</title>',
             f'<text x="4" y="16" font-size="12">{escape(grid.title())}</text>',
             '<text x="4" y="32" font-size="10">rows: lanes; a filled cell: the lane touches that '
             f'{"bank (label: word offset)" if grid.shared else "sector"}</text>']
    for c, name in enumerate(grid.columns):
        if cw >= 18 or c % 8 == 0:
            parts.append(f'<text x="{left + c * cw + cw / 2}" y="{top - 4}" font-size="7" '
                         f'text-anchor="middle">{escape(name)}</text>')
    for lane in range(32):
        y = top + lane * ch
        parts.append(f'<text x="{left - 4}" y="{y + ch - 4}" font-size="8" text-anchor="end">'
                     f'{lane}</text>')
        for c, label in enumerate(grid.cells[lane]):
            fill = lane_colour(lane) if label is not None else "#fff"
            parts.append(f'<rect x="{left + c * cw}" y="{y}" width="{cw}" height="{ch}" fill="{fill}" '
                         f'stroke="#999" stroke-width="0.3"/>')
            if label is not None and grid.shared and cw >= 18:
                parts.append(f'<text x="{left + c * cw + cw / 2}" y="{y + ch - 4}" font-size="7" '
                             f'text-anchor="middle">{escape(label)}</text>')
    if grid.shared:
        y = top + 32 * ch
        parts.append(f'<text x="{left - 4}" y="{y + ch - 4}" font-size="8" text-anchor="end">words</text>')
        for c, n in enumerate(grid.conflict):
            fill = "#f88" if n > 1 else "#dfd"
            parts.append(f'<rect x="{left + c * cw}" y="{y}" width="{cw}" height="{ch}" fill="{fill}" '
                         f'stroke="#999" stroke-width="0.3"/>')
            parts.append(f'<text x="{left + c * cw + cw / 2}" y="{y + ch - 4}" font-size="8" '
                         f'text-anchor="middle">{n}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def access_png(grid: AccessGrid, *, cell: int = 10) -> bytes:
    """The same grid as a PNG (no text), written with zlib alone."""
    palette = []
    for lane in range(32):
        hue = ((lane * 45 + (lane // 8) * 11) % 360) / 360       # lane_colour's hues and bands
        r, g, b = colorsys.hls_to_rgb(hue, (62 if lane % 2 else 78) / 100, 0.70)
        palette.append(bytes((round(r * 255), round(g * 255), round(b * 255))))
    white, line = b"\xff\xff\xff", b"\x99\x99\x99"
    ncols = max(1, len(grid.columns))
    rows = []
    for lane in range(32):
        px = b"".join(line + (palette[lane] if lab is not None else white) * (cell - 1)
                      for lab in grid.cells[lane]) or white * cell
        rows.append(b"\x00" + line * (ncols * cell))
        rows += [b"\x00" + px] * (cell - 1)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    w, h = ncols * cell, 32 * cell
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b""))
