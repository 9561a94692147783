"""The `ptxld` command line: parse, fmt, check, explain, rules, run, sass.

Exit codes (contract): 0 no errors; 1 errors found; 2 usage or I/O problem; 3 internal error (a
bug in ptxld, reported without a traceback); 130 interrupted (Ctrl-C).
"""
from __future__ import annotations

import os
import sys

from . import cachedir, patterns
from .cliutil import Group, Path, argument, echo, group, option
from .io import InputError, read_ptx
from .version import version


# Subcommands living with their subsystem, imported only when used (the emulator loads NumPy),
# with the one-line help `ptxld --help` shows without importing them (start-up time).
_LAZY = {
    "check": ("ptxld.checker.cli:check_cmd", "Check PTX files against the PTX ISA and ptxas 13.0."),
    "explain": ("ptxld.checker.cli:explain_cmd", "Explain a load instruction or a rule code."),
    "rules": ("ptxld.checker.cli:rules_cmd", "List every rule with its code, severity and summary."),
    "run": ("ptxld.memreport.cli:run_cmd", "Run a kernel of a PTX file on the CPU (with --memory-report: "
            "what each load costs)."),
    "sass": ("ptxld.sass.cli:sass", "Maxwell/Pascal SASS loads (LDG, LD): asm, disasm, lower, control."),
    "wmma": ("ptxld.wmma.cli:wmma_group", "WMMA fragment layouts: tables, pictures, explanations."),
}


class _Main(Group):
    """`ptxld`: the exit-code contract around every subcommand."""

    def run(self, args: list, prog: str) -> None:
        # the compiled regular expressions of an earlier run (before a command imports the
        # parser), unless the check's cache is turned off
        options = args[:args.index("--")] if "--" in args else args
        if "--no-cache" not in options:
            patterns.keep_in(cachedir.directory())
        try:
            super().run(args, prog)
        except KeyboardInterrupt:  # Ctrl-C: the shell's convention
            echo("interrupted", err=True)
            sys.exit(130)
        except BrokenPipeError:  # `ptxld rules | head`: the reader left, which is no error
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(141)
        except InputError as e:
            echo(f"error: {e}", err=True)
            sys.exit(2)
        except RecursionError:
            echo("error: input nests too deeply to process", err=True)
            sys.exit(2)
        except MemoryError:  # the machine's memory ran out before ptxld's own budget did
            echo("error: out of memory; for `run`, lower --memory-budget or the launch size", err=True)
            sys.exit(2)
        except Exception as e:  # pragma: no cover - a bug in ptxld, reported without a traceback
            echo(f"internal error: {type(e).__name__}: {e}\n"
                 "this is a bug in ptxld; please report it with the input", err=True)
            sys.exit(3)
        finally:
            patterns.save()


@group("ptxld", cls=_Main, lazy=_LAZY, version=version)
def main() -> None:
    """Parse, check, run and lower NVIDIA GPU load instructions (PTX ld, ld.global.nc, wmma.load,
    SASS LDG).

    \b
    Exit status: 0 no errors, 1 errors found, 2 usage or I/O problem,
    3 internal error (a bug in ptxld: please report it), 130 interrupted."""


@main.command("parse")
@argument("file", type=Path(allow_dash=True))
@option("--json", dest="as_json", action="store_true",
        help="Print the model of every load as JSON lines.")
def parse_cmd(file: str, as_json: bool) -> None:
    """Parse FILE and show every load-family instruction (ld, ld.global.nc, wmma.load)."""
    import json

    # start-up time: the parser only for the commands that parse
    from .ptx.loads import to_json
    from .ptx.parser import parse

    text, warning = read_ptx(file)
    if warning:
        echo(f"warning: {warning}", err=True)
    file = "<stdin>" if file == "-" else file
    module = parse(text, filename=file)
    for ins in module.loads():
        if as_json:
            echo(json.dumps(to_json(ins.load)))
        else:
            m = ins.load
            echo(f"{file}:{ins.line}:{ins.column}: {ins.opcode}  "
                 f"[{m.form}, space={m.space or 'generic'}, type={m.type}]")
    errors = [d for d in module.diagnostics if d.severity == "error"]
    for d in module.diagnostics:
        echo(f"{file}:{d.line}:{d.column}: {d.severity}[{d.code}]: {d.message}", err=True)
    sys.exit(1 if errors else 0)


@main.command("fmt")
@argument("files", nargs="+", type=Path(allow_dash=True))
@option("--check", dest="check_only", action="store_true", help="Exit 1 if a file is not formatted.")
@option("--diff", action="store_true", help="Print a unified diff instead of the text.")
@option("-i", "--in-place", action="store_true", help="Rewrite the files.")
def fmt_cmd(files: list[str], check_only: bool, diff: bool, in_place: bool) -> None:
    """Print FILES in canonical PTX layout (like `ruff format`)."""
    import difflib

    # start-up time: the parser and printer only for the commands that use them
    from .ptx.formatting import format_text
    from .ptx.printer import FormatError

    status = 0
    for file in files:
        text, warning = read_ptx(file)
        name = "<stdin>" if file == "-" else file
        if warning and in_place:
            # writing the text back would replace its undecodable bytes
            echo(f"{name}: not formatted: it is not valid UTF-8 ({warning})", err=True)
            status = max(status, 1)
            continue
        try:
            out = format_text(text, filename=name)
        except FormatError as e:
            echo(str(e), err=True)
            status = max(status, 1)
            continue
        if check_only or diff:
            if out != text:
                status = max(status, 1)
                if diff:
                    echo("".join(difflib.unified_diff(
                        text.splitlines(True), out.splitlines(True), file, file + " (formatted)")), nl=False)
                else:
                    echo(f"would reformat {file}")
        elif in_place and file != "-":
            if out != text:
                with open(file, "w", encoding="utf-8") as f:
                    f.write(out)
        else:
            echo(out, nl=False)
    sys.exit(status)


if __name__ == "__main__":
    main()
