"""`ptxld check`, `ptxld explain`, `ptxld rules`."""
from __future__ import annotations

import sys

import click

from ..io import read_ptx


@click.command("check")
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif"]), default="text")
@click.option("--strict", is_flag=True, help="Seed rules stricter than ptxas become errors.")
def check_cmd(files, fmt, strict):
    """Check the loads in FILES against the PTX ISA and ptxas."""
    from . import check_source
    errors = 0
    for file in files:
        text, warning = read_ptx(file)
        for d in check_source(text, filename=file, strict=strict):
            errors += d.severity == "error"
            click.echo(f"{file}:{d.line}:{d.column}: {d.severity}[{d.code}]: {d.message}")
    sys.exit(1 if errors else 0)


@click.command("explain")
@click.argument("what")
def explain_cmd(what):
    """Explain an instruction (`"ld.global.v4.f32 ..."`) or a rule code."""
    click.echo(what)


@click.command("rules")
def rules_cmd():
    """List every rule with its code."""
