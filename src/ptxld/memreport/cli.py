"""`ptxld run` with the memory report: the emulator's `run` command plus

  --memory-report               the table (worst lines first) and the findings on stdout
  --memory-report-json FILE     the report as JSON (`Report.to_dict()`)
  --memory-report-html FILE     annotated PTX (and CUDA, where .loc maps it) as one HTML file
  --show-access LINE            a picture of one warp's access on that PTX line
  --show-access-out FILE        where the picture goes (.svg or .png; default access-LINE.svg)
  --cache-preset sm_80|sm_90    the cache model's sizes (default: the module's target)
"""
from __future__ import annotations

import json
import sys

from ..cliutil import Path, UsageError, command, echo, option
from ..emu.cli import run_kernel, run_options
from .cache import PRESETS
from .html import report_html
from .recorder import ReportOptions


@command("run")
@option("--memory-report", dest="memory_report", action="store_true",
        help="Print the memory report: requests, sectors, bank conflicts, cache model.")
@option("--memory-report-json", dest="json_out", type=Path(dir_okay=False), default=None,
        help="Write the memory report as JSON.")
@option("--memory-report-html", dest="html_out", type=Path(dir_okay=False), default=None,
        help="Write the annotated-source memory report as a self-contained HTML file.")
@option("--show-access", dest="show_line", type=int, default=None, metavar="LINE",
        help="Draw one warp's access of PTX line LINE (lanes against sectors or banks).")
@option("--show-access-out", dest="show_out", type=Path(dir_okay=False), default=None,
        help="The picture's file: .svg or .png (default access-LINE.svg).")
@option("--cache-preset", choices=sorted(PRESETS), default=None,
        help="Cache sizes of the model (default: from the module's .target).")
@run_options
def run_cmd(memory_report, json_out, html_out, show_line, show_out, cache_preset, quiet, **run_args):
    """Run a kernel of FILE on the CPU. ARGS are .npy buffers or typed scalars (u32:1024)."""
    if show_out and show_line is None:
        raise UsageError("--show-access-out needs --show-access LINE")
    if show_out and not show_out.endswith((".svg", ".png")):
        raise UsageError(f"--show-access-out {show_out}: the name must end in .svg or .png")
    wanted = memory_report or json_out or html_out or show_line is not None
    options = ReportOptions(cache=cache_preset) if wanted else False
    result = run_kernel(**run_args, memory_report=options)
    if not wanted:
        if not quiet:
            echo(result.summary())
        return
    rep = result
    if not quiet:
        echo(rep.stats.summary())
    if memory_report:
        echo(rep.table())
    if json_out:
        with open(json_out, "w", encoding="utf-8") as f:
            json.dump(rep.to_dict(), f, indent=1)
    if html_out:
        with open(html_out, "w", encoding="utf-8") as f:
            f.write(report_html(rep))
    if show_line is not None:
        if show_line not in rep.samples:
            lines = ", ".join(str(n) for n in sorted(rep.samples)) or "none"
            echo(f"error: line {show_line} of {run_args['file']} has no memory access that executed "
                 f"(lines with one: {lines})", err=True)
            sys.exit(1)
        path = show_out or f"access-{show_line}.svg"
        if path.endswith(".png"):
            with open(path, "wb") as f:
                f.write(rep.access_png(show_line))
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(rep.access_svg(show_line))
        echo(f"access picture of line {show_line}: {path}")
