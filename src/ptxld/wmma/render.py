"""Show fragments: a lane × register text table, an SVG of the matrix, and the explanation of a
wmma.load instruction (for ``ptxld explain``)."""
from __future__ import annotations

from html import escape

from ptxld.spec import wmma as spec
from ptxld.wmma.errors import WmmaError
from ptxld.wmma.layouts import FAMILIES, FragmentLayout, fragment_layout, target_family
from ptxld.wmma.params import WmmaMemParams, parse


def _axis_names(matrix: str) -> tuple[str, str]:
    return ("k", "n") if matrix == "b" else ("row", "col")


def _span(values: list[int]) -> str:
    if len(values) > 1 and values == list(range(values[0], values[0] + len(values))):
        return f"{values[0]}-{values[-1]}"
    return str(values[0])


def _cell(lay: FragmentLayout, lane: int, reg: int) -> str:
    rows = [int(r) for r in lay.rows[lane, reg]]
    cols = [int(c) for c in lay.cols[lane, reg]]
    if len(set(rows)) == 1 and (len(cols) == 1 or _span(cols) != str(cols[0])):
        return f"({rows[0]},{_span(cols)})"
    if len(set(cols)) == 1 and _span(rows) != str(rows[0]):
        return f"({_span(rows)},{cols[0]})"
    return "".join(f"({r},{c})" for r, c in zip(rows, cols))


def _summary(lay: FragmentLayout) -> list[str]:
    fs = lay.spec
    r, c = fs.dims
    packing = (f"{fs.elements_per_register} × .{fs.type} per register, element 0 in the lowest "
               f"bits" if fs.elements_per_register > 1 else f"one .{fs.type} per register")
    lines = [
        f"fragment {lay.name}: matrix {fs.matrix.upper()} is {r}×{c}; {fs.nregs} register(s) "
        f"per lane ({' | '.join('.' + k for k in fs.register_classes)}), {packing}",
        f"layout basis: {lay.basis} — {lay.provenance}",
    ]
    if fs.replication > 1:
        lines.append(f"each element is held {fs.replication} times (replicated copies must agree)")
    if fs.matrix in "cd":
        lines.append("this mapping does not depend on the memory layout (.row/.col)")
    return lines


def fragment_table(shape: str, matrix: str, type: str, layout: str, target: str) -> str:
    """Lane × register table; each cell lists the (row, col) — for B (k, n) — it holds."""
    lay = fragment_layout(target, shape, matrix, type, layout)
    first, second = _axis_names(matrix)
    cells = [[_cell(lay, lane, reg) for reg in range(lay.nregs)] for lane in range(32)]
    headers = ["lane"] + [f"r{reg}" for reg in range(lay.nregs)]
    widths = [max(len(headers[0]), 4)] + [
        max(len(headers[i + 1]), *(len(row[i]) for row in cells)) for i in range(lay.nregs)]
    out = _summary(lay) + [f"cells: ({first},{second}) of the element(s) in lane × register", ""]
    out.append("  ".join(h.rjust(w) for h, w in zip(headers, widths)))
    out.append("  ".join("-" * w for w in widths))
    for lane, row in enumerate(cells):
        out.append("  ".join([str(lane).rjust(widths[0])] +
                             [c.ljust(w) for c, w in zip(row, widths[1:])]).rstrip())
    return "\n".join(out) + "\n"


def lane_colour(lane: int) -> str:
    """32 distinguishable fills: hues spread by a step coprime with 32, two lightness bands."""
    return f"hsl({(lane * 45 + (lane // 8) * 11) % 360},70%,{62 if lane % 2 else 78}%)"


def fragment_svg(shape: str, matrix: str, type: str, layout: str, target: str) -> str:
    """An SVG of the matrix: each cell filled with the colour of the lane that owns it (the
    first holder of a replicated element) and labelled ``L<lane> r<reg>[.<slot>]``."""
    lay = fragment_layout(target, shape, matrix, type, layout)
    nrows, ncols = lay.dims
    lane, reg, slot = lay.owner
    cw = max(6, min(44, 1400 // ncols))
    ch = max(cw, 26) if cw >= 30 else cw
    left, top = 36, 46
    width, height = left + ncols * cw + 10, top + nrows * ch + 60
    first, second = _axis_names(matrix)
    title = f"wmma {lay.name} — {lay.basis}" + (
        f" — each element held ×{lay.replication} (first copy shown)" if lay.replication > 1 else "")
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="monospace">',
        f'<title>{escape(title)}</title>',
        f'<text x="4" y="16" font-size="13">{escape(title)}</text>',
        f'<text x="4" y="32" font-size="10">{escape(lay.provenance[:160])}</text>',
    ]
    for r in range(nrows):
        for c in range(ncols):
            ln, rg, sl = int(lane[r, c]), int(reg[r, c]), int(slot[r, c])
            x, y = left + c * cw, top + r * ch
            label = f"L{ln} r{rg}" + (f".{sl}" if lay.slots > 1 else "")
            copies = len(lay.holders(r, c)) if lay.replication > 1 else 1
            tip = f"({first}={r}, {second}={c}) lane {ln} register {rg} slot {sl}" + (
                f"; {copies} copies" if copies > 1 else "")
            parts.append(f'<rect x="{x}" y="{y}" width="{cw}" height="{ch}" '
                         f'fill="{lane_colour(ln)}" stroke="#444" stroke-width="0.3">'
                         f'<title>{escape(tip)}</title></rect>')
            if cw >= 30:
                parts.append(f'<text x="{x + cw / 2}" y="{y + ch / 2 - 2}" font-size="8" '
                             f'text-anchor="middle">L{ln}</text>')
                parts.append(f'<text x="{x + cw / 2}" y="{y + ch / 2 + 8}" font-size="7" '
                             f'text-anchor="middle">{escape(label.split(" ")[1])}</text>')
    for r in range(nrows):
        parts.append(f'<text x="{left - 4}" y="{top + r * ch + ch / 2 + 3}" font-size="8" '
                     f'text-anchor="end">{r}</text>')
    step = 1 if cw >= 16 else 8
    for c in range(0, ncols, step):
        parts.append(f'<text x="{left + c * cw + cw / 2}" y="{top - 3}" font-size="8" '
                     f'text-anchor="middle">{c}</text>')
    ly = top + nrows * ch + 14
    parts.append(f'<text x="4" y="{ly}" font-size="9">{first} ↓  {second} →   lanes:</text>')
    for ln in range(32):
        x = 4 + ln * 22
        parts.append(f'<rect x="{x}" y="{ly + 6}" width="20" height="14" '
                     f'fill="{lane_colour(ln)}" stroke="#444" stroke-width="0.3"/>')
        parts.append(f'<text x="{x + 10}" y="{ly + 17}" font-size="8" '
                     f'text-anchor="middle">{ln}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _version(v: tuple[int, int]) -> str:
    return f"{v[0]}.{v[1]}"


def describe_wmma_load(opcode_modifiers: list[str] | str, target: str) -> str:
    """Explain a wmma.load (or wmma.store) given its dotted modifiers in any order ptxas
    accepts, e.g. ``['a', 'sync', 'aligned', 'row', 'm16n16k16', 'f16']``, and show the
    fragment table for ``target``. Raises ``WmmaError`` for an illegal combination."""
    kind = "load"
    if isinstance(opcode_modifiers, str):
        p = parse(opcode_modifiers)
    else:
        mods = [m.lstrip(".") for m in opcode_modifiers]
        if mods[:1] == ["wmma"]:
            mods = mods[1:]
        if mods[:1] in (["load"], ["store"]):
            kind, mods = mods[0], mods[1:]
        p = parse(mods, kind=kind)
    if not isinstance(p, WmmaMemParams):
        raise WmmaError("describe_wmma_load explains wmma.load/wmma.store only")
    fs = p.fragment
    rows, cols = fs.dims
    req = p.requirements()
    verb = "Loads" if p.op == "load" else "Stores"
    where = f".{p.space}" if p.space else "generic-addressed (global or shared)"
    lead = "rows" if p.layout == "row" else "columns"
    default = fs.default_stride(p.layout)
    out = [
        p.opcode,
        "",
        f"{verb} matrix {fs.matrix.upper()} ({rows}×{cols} .{fs.type}) of a "
        f".{p.shape} computation, collectively for all 32 threads of the warp, "
        f"{'from' if p.op == 'load' else 'to'} {where} memory at [p], stored "
        f"{'row' if p.layout == 'row' else 'column'}-major ({lead} contiguous).",
        f"Fragment: {fs.nregs} register(s) per thread "
        f"({' | '.join('.' + r for r in fs.register_classes)}), "
        f"{fs.elements_per_register} element(s) per register"
        + (f"; each element is held {fs.replication} times" if fs.replication > 1 else "") + ".",
        f"Stride: optional 32-bit operand, elements between the starts of consecutive {lead}; "
        f"default {default}; a larger one must be given, a smaller one is undefined behaviour.",
        f"Alignment: p a multiple of {fs.address_alignment} bytes; stride × "
        f"{fs.element_bits / 8:g} bytes a multiple of {fs.stride_alignment(p.layout)} bytes.",
        f"Requires: PTX ISA {_version(req.gate.min_ptx)} or later and sm_{req.gate.min_sm} or later"
        + (f"; PTX ISA below {_version(req.ptx_below)}" if req.ptx_below else "")
        + f" (.aligned: forbidden before PTX {_version(spec.ALIGNED_FROM_PTX)}, required from it).",
        "Threads must execute it together (.sync/.aligned) with the same p and stride; "
        "the lane ↔ element assignment is unspecified by PTX and depends on the GPU.",
    ]
    out += [f"Note: {n}" for n in req.notes]
    family = target_family(target)
    if FAMILIES.index(family) < FAMILIES.index(target_family(fs.gate.min_sm)):
        out += ["", f"Not available on {target}: needs sm_{fs.gate.min_sm} or later."]
        return "\n".join(out) + "\n"
    out += ["", f"Fragment on {target} (layout family {family}):",
            fragment_table(p.shape, p.matrix, p.type, p.layout, target)]
    return "\n".join(out)


# A 3×5 pixel font for the PNG's numbers (row and column indices, lane numbers, the legend).
_DIGITS = {
    "0": ("111", "101", "101", "101", "111"), "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"), "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"), "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"), "7": ("111", "001", "010", "010", "010"),
    "8": ("111", "101", "111", "101", "111"), "9": ("111", "101", "111", "001", "111"),
}
PNG_LEFT = 16          # pixels left of the matrix: row indices
PNG_TOP = 8            # pixels above the matrix: column indices
_LEGEND_SWATCH = (14, 9)


def png_geometry(nrows: int, ncols: int, cell: int) -> tuple[int, int, int]:
    """(width, height, y of the legend) of a fragment PNG."""
    sw, sh = _LEGEND_SWATCH
    width = max(PNG_LEFT + ncols * cell + 2, PNG_LEFT + 16 * (sw + 2))
    legend_y = PNG_TOP + nrows * cell + 4
    return width, legend_y + 2 * (sh + 2), legend_y


def fragment_png(shape: str, matrix: str, type: str, layout: str, target: str, *, cell: int = 12) -> bytes:
    """A PNG of the matrix, each element a `cell`-pixel square in the colour of its owning lane
    (same colours as the SVG) and, where the cell is big enough, that lane's number; row and
    column indices along the edges and a legend of the 32 lane colours below. Written with zlib
    alone: no imaging dependency."""
    import colorsys
    import struct
    import zlib

    lay = fragment_layout(target, shape, matrix, type, layout)
    nrows, ncols = lay.dims
    lanes = lay.owner[0]
    palette = []
    for lane in range(32):
        hue = ((lane * 45 + (lane // 8) * 11) % 360) / 360
        light = (62 if lane % 2 else 78) / 100
        r, g, b = colorsys.hls_to_rgb(hue, light, 0.70)
        palette.append(bytes((round(r * 255), round(g * 255), round(b * 255))))
    w, h, legend_y = png_geometry(nrows, ncols, cell)
    canvas = bytearray(b"\xff" * (w * h * 3))
    ink, grid = bytes((20, 20, 20)), bytes((40, 40, 40))

    def rect(x, y, rw, rh, colour):
        for yy in range(y, y + rh):
            canvas[(yy * w + x) * 3:(yy * w + x + rw) * 3] = colour * rw

    def text(x, y, s):
        for k, ch in enumerate(s):
            for dy, bits in enumerate(_DIGITS[ch]):
                for dx, bit in enumerate(bits):
                    if bit == "1":
                        rect(x + 4 * k + dx, y + dy, 1, 1, ink)

    rect(PNG_LEFT, PNG_TOP, ncols * cell, nrows * cell, grid)
    labelled = cell >= 9
    for i in range(nrows):
        for j in range(ncols):
            x, y = PNG_LEFT + j * cell, PNG_TOP + i * cell
            rect(x + 1, y + 1, cell - 1, cell - 1, palette[int(lanes[i, j])])
            if labelled:
                n = str(int(lanes[i, j]))
                text(x + 2 + (cell - 1 - 4 * len(n)) // 2, y + (cell - 4) // 2, n)
    step = max(1, -(-5 // cell))   # indices every `step` cells, where they fit
    for i in range(0, nrows, step):
        text(1, PNG_TOP + i * cell + (cell - 4) // 2, str(i))
    for j in range(0, ncols, max(step, -(-8 // cell))):
        text(PNG_LEFT + j * cell + 1, 1, str(j))
    sw, sh = _LEGEND_SWATCH
    for lane in range(32):
        x, y = PNG_LEFT + (lane % 16) * (sw + 2), legend_y + (lane // 16) * (sh + 2)
        rect(x, y, sw, sh, palette[lane])
        text(x + (sw - 4 * len(str(lane)) + 1) // 2, y + 2, str(lane))
    raw = b"".join(b"\x00" + bytes(canvas[y * w * 3:(y + 1) * w * 3]) for y in range(h))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
