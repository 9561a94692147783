"""``ptxld wmma`` commands: fragment tables, SVG pictures and wmma.load explanations."""
from __future__ import annotations

from ptxld.cliutil import FileError, UsageError, argument, echo, group, option
from ptxld.spec.targets import DEFAULT_TARGET
from ptxld.wmma.errors import WmmaError
from ptxld.wmma.render import describe_wmma_load, fragment_svg, fragment_table


def _fragment_args(f):
    for decorator in reversed([
        argument("shape"), argument("matrix", choices=list("abcd")),
        argument("type_", metavar="TYPE"),
        argument("layout", choices=["row", "col"]),
        option("--target", default=DEFAULT_TARGET, show_default=True, help="e.g. sm_70, sm_90a"),
    ]):
        f = decorator(f)
    return f


@group("wmma")
def wmma_group():
    """WMMA fragment layouts: which lane and register holds which matrix element."""


@wmma_group.command("table")
@_fragment_args
def table_cmd(shape, matrix, type_, layout, target):
    """Print the lane × register table of a fragment."""
    try:
        echo(fragment_table(shape, matrix, type_, layout, target), nl=False)
    except WmmaError as e:
        raise UsageError(str(e))


@wmma_group.command("svg")
@_fragment_args
@option("-o", "--output", default="-", metavar="FILENAME", help="file (default stdout)")
def svg_cmd(shape, matrix, type_, layout, target, output):
    """Write an SVG picture of the matrix coloured by owning lane."""
    try:
        svg = fragment_svg(shape, matrix, type_, layout, target)
    except WmmaError as e:
        raise UsageError(str(e))
    if output == "-":
        echo(svg, nl=False)
        return
    try:  # opened once the picture is drawn: an error leaves no file behind
        with open(output, "w") as f:
            f.write(svg)
    except OSError as e:
        raise FileError(output, hint=e.strerror)


@wmma_group.command("explain")
@argument("instruction")
@option("--target", default=DEFAULT_TARGET, show_default=True)
def explain_cmd(instruction, target):
    """Explain a wmma.load/wmma.store mnemonic, e.g. wmma.load.a.sync.aligned.row.m16n16k16.f16."""
    try:
        echo(describe_wmma_load(instruction.split()[0], target), nl=False)
    except WmmaError as e:
        raise UsageError(str(e))
