"""Fragment table, SVG and explanation text."""
import re
import xml.etree.ElementTree as ET

import pytest

from ptxld.wmma import WmmaError
from ptxld.wmma.render import describe_wmma_load, fragment_svg, fragment_table

SVG = "{http://www.w3.org/2000/svg}"


def test_table_lists_every_element_of_sm80_f16_a():
    text = fragment_table("m16n16k16", "a", "f16", "row", "sm_80")
    assert "basis: hardware" in text and "held 2 times" in text
    grid = [l for l in text.splitlines() if re.match(r"\s*\d+\s+\(", l)]
    assert len(grid) == 32
    seen = set()
    for line in grid:
        for row, c0, c1 in re.findall(r"\((\d+),(\d+)-(\d+)\)", line):
            seen |= {(int(row), c) for c in range(int(c0), int(c1) + 1)}
    assert seen == {(r, c) for r in range(16) for c in range(16)}
    # spec/wmma.md §6a: lane 5 (g=1, t=1) register 0 holds row 1, cols 2-3
    assert grid[5].split()[1] == "(1,2-3)"


def test_table_labels_b_axes_and_choice():
    text = fragment_table("m8n8k128", "b", "b1", "col", "sm_90")
    assert "(k,n)" in text and "basis: ptxld choice" in text


@pytest.mark.parametrize("args", [("m16n16k16", "a", "f16", "row", "sm_80"),
                                  ("m8n8k128", "a", "b1", "row", "sm_80"),
                                  ("m16n16k16", "c", "f32", "col", "sm_70")])
def test_svg_is_well_formed_with_one_cell_per_element(args):
    svg = fragment_svg(*args)
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    cells = [r for r in root.iter(SVG + "rect") if r.find(SVG + "title") is not None]
    rows, cols = {"a": {"m16n16k16": (16, 16), "m8n8k128": (8, 128)}, "c": {"m16n16k16": (16, 16)}}[
        args[1]][args[0]]
    assert len(cells) == rows * cols
    tips = {c.find(SVG + "title").text for c in cells}
    assert len(tips) == rows * cols  # each cell names its own element


def test_describe_any_qualifier_order():
    a = describe_wmma_load(["a", "sync", "aligned", "row", "m16n16k16", "f16"], "sm_80")
    b = describe_wmma_load(["row", "m16n16k16", "a", "f16", "sync", "aligned"], "sm_80")
    assert a == b
    assert a.startswith("wmma.load.a.sync.aligned.row.m16n16k16.f16")
    assert "default 16" in a and "multiple of 32 bytes" in a
    assert "PTX ISA 6.3" in a and "sm_70" in a
    assert "basis: hardware" in a


def test_describe_gates_and_errors():
    text = describe_wmma_load(["a", "sync", "aligned", "row", "m8n8k4", "f64"], "sm_75")
    assert "Not available on sm_75" in text and "sm_80" in text
    ext = describe_wmma_load(["c", "sync", "aligned", "col", "m8n8k128", "f32"], "sm_80")
    assert "ptxas extension" in ext
    with pytest.raises(WmmaError):
        describe_wmma_load(["a", "sync", "aligned", "col", "m8n8k32", "s4"], "sm_80")


def test_cli_group():
    from cli_runner import CliRunner

    from ptxld.wmma.cli import wmma_group
    runner = CliRunner()
    ok = runner.invoke(wmma_group, ["table", "m16n16k8", "a", "tf32", "col", "--target", "sm_90"])
    assert ok.exit_code == 0 and "basis: hardware" in ok.output
    bad = runner.invoke(wmma_group, ["table", "m8n8k32", "a", "s4", "col"])
    assert bad.exit_code == 2 and "cannot be .col" in bad.output and "Traceback" not in bad.output
    svg = runner.invoke(wmma_group, ["svg", "m8n8k4", "c", "f64", "row"])
    assert svg.exit_code == 0 and svg.output.startswith("<svg")
