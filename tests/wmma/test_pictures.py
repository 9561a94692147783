"""`ptxld explain ... --png/--svg`: the pictures show which lane holds each matrix element."""
from __future__ import annotations

import struct
import zlib

import pytest
from cli_runner import CliRunner

from ptxld.cli import main
from ptxld.wmma.layouts import fragment_layout
from ptxld.wmma.render import PNG_LEFT, PNG_TOP, fragment_png, png_geometry


def _decode_png(data: bytes):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, size = 8, b"", None
    while pos < len(data):
        n, tag = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        assert struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0] == zlib.crc32(tag + body)
        if tag == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif tag == b"IDAT":
            idat += body
        pos += 12 + n
    w, h = size
    raw = zlib.decompress(idat)
    rows = [raw[y * (3 * w + 1) + 1:(y + 1) * (3 * w + 1)] for y in range(h)]
    return w, h, rows


@pytest.mark.parametrize("shape, matrix, type_, layout", [
    ("m16n16k16", "a", "f16", "row"), ("m16n16k16", "c", "f32", "col"), ("m8n8k4", "b", "f64", "col"),
])
def test_png_cells_are_coloured_by_a_lane_that_holds_the_element(shape, matrix, type_, layout):
    cell = 6
    png = fragment_png(shape, matrix, type_, layout, "sm_80", cell=cell)
    lay = fragment_layout("sm_80", shape, matrix, type_, layout)
    nrows, ncols = lay.dims
    w, h, rows = _decode_png(png)
    assert (w, h) == png_geometry(nrows, ncols, cell)[:2]
    # colour of each cell's interior -> the set of cells sharing it must all be held by one lane
    colour_lanes: dict[bytes, set[int]] = {}
    for i in range(nrows):
        for j in range(ncols):
            x, y = PNG_LEFT + j * cell + 1, PNG_TOP + i * cell + 1
            colour = rows[y][3 * x:3 * x + 3]
            lanes = {lane for lane, _, _ in lay.holders(i, j)}
            colour_lanes.setdefault(colour, set())
            colour_lanes[colour] = lanes if not colour_lanes[colour] else colour_lanes[colour] & lanes
            assert colour_lanes[colour], f"cell ({i},{j}) shares a colour with cells of other lanes"
    assert len(colour_lanes) == 32  # every lane owns elements


def test_explain_writes_svg_and_png(tmp_path):
    svg, png = tmp_path / "a.svg", tmp_path / "a.png"
    r = CliRunner().invoke(main, ["explain", "wmma.load.a.sync.aligned.row.m16n16k16.f16",
                                  "--svg", str(svg), "--png", str(png)])
    assert r.exit_code == 0, r.output
    assert svg.read_text().lstrip().startswith(("<svg", "<?xml"))
    assert png.read_bytes()[:4] == b"\x89PNG"
    r = CliRunner().invoke(main, ["explain", "ld.global.u32 %r1, [%rd1];", "--png", str(png)])
    assert r.exit_code == 2


def test_png_has_labels_and_a_legend():
    cell = 12
    lay = fragment_layout("sm_80", "m16n16k16", "a", "f16", "row")
    nrows, ncols = lay.dims
    w, h, rows = _decode_png(fragment_png("m16n16k16", "a", "f16", "row", "sm_80", cell=cell))
    _, _, legend_y = png_geometry(nrows, ncols, cell)

    def px(x, y):
        return rows[y][3 * x:3 * x + 3]
    dark = b"\x14\x14\x14"
    # every cell carries its lane number in dark ink
    for i in range(nrows):
        for j in range(ncols):
            x0, y0 = PNG_LEFT + j * cell, PNG_TOP + i * cell
            assert any(px(x, y) == dark for x in range(x0 + 1, x0 + cell) for y in range(y0 + 1, y0 + cell))
    # the row and column indices are drawn in the margins
    assert any(px(x, y) == dark for x in range(PNG_LEFT) for y in range(PNG_TOP, h // 2))
    assert any(px(x, y) == dark for x in range(PNG_LEFT, w) for y in range(PNG_TOP))
    # the legend: a swatch per lane, in the colour of that lane's cells
    colour_of = {int(lay.owner[0][i, j]): px(PNG_LEFT + j * cell + 1, PNG_TOP + i * cell + 1)
                 for i in range(nrows) for j in range(ncols)}
    for lane in range(32):
        x, y = PNG_LEFT + (lane % 16) * 16, legend_y + (lane // 16) * 11
        assert px(x, y) == colour_of[lane], lane
