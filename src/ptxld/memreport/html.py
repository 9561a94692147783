"""The memory report as one self-contained HTML page: the PTX source with each memory line's
figures beside it, the CUDA source beside its figures where `.file`/`.loc` map PTX lines to it
(debug or -lineinfo PTX), the kernel totals and the findings. No scripts, no external files."""
from __future__ import annotations

import os
import re
from html import escape

from .report import COUNTS, MODEL_NOTE, Report

_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"')
_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)")
SHOWN = ("requests", "sectors", "sectors_ideal", "excess_sectors", "wavefronts", "bank_conflicts",
         "shared_bytes", "l1_hits", "l1_misses", "l2_hits", "l2_misses", "dram_sectors")
HEADS = ("req", "sect", "ideal", "excess", "wavef", "confl", "bulk smem", "L1 hit", "L1 miss", "L2 hit",
         "L2 miss", "DRAM")


def source_map(ptx: str) -> tuple[dict[int, str], dict[int, tuple[int, int]]]:
    """(file number -> path, PTX line -> (file number, source line)) from .file/.loc."""
    files, where, current = {}, {}, None
    for n, text in enumerate(ptx.splitlines(), 1):
        m = _FILE.match(text)
        if m:
            files[int(m[1])] = m[2]
            continue
        m = _LOC.match(text)
        if m:
            current = (int(m[1]), int(m[2]))
            continue
        if current is not None and text.strip() and not text.strip().startswith(("//", ".")):
            where[n] = current
    return files, where


def _read(path: str, near: str) -> list[str] | None:
    for p in (path, os.path.join(os.path.dirname(near), path),
              os.path.join(os.path.dirname(near), os.path.basename(path))):
        try:
            with open(p, encoding="utf-8", errors="replace") as f:
                return f.read().splitlines()
        except OSError:
            continue
    return None


def _shade(r: dict, worst: int) -> str:
    w = r["excess_sectors"] + r["bank_conflicts"]
    if w <= 0:
        return "#eef8ee" if r["sectors"] or r["wavefronts"] else "#f6f6f6"
    return f"hsl(0,80%,{92 - 30 * w / max(worst, 1):.0f}%)"


def _row(num, code, r, worst) -> str:
    if r is None:
        cells = "".join("<td></td>" for _ in SHOWN)
        return f'<tr><td class="n">{num}</td><td class="c">{escape(code)}</td>{cells}</tr>'
    cells = "".join(f"<td>{r[k]}</td>" for k in SHOWN)
    return (f'<tr style="background:{_shade(r, worst)}"><td class="n">{num}</td>'
            f'<td class="c">{escape(code)}</td>{cells}</tr>')


def _table(title, rows) -> str:
    head = "".join(f"<th>{h}</th>" for h in HEADS)
    return (f"<h2>{escape(title)}</h2><table><tr><th>line</th><th>source</th>{head}</tr>"
            + "".join(rows) + "</table>")


def report_html(rep: Report) -> str:
    by_line = {r["line"]: r for r in rep.lines}
    worst = max([r["excess_sectors"] + r["bank_conflicts"] for r in rep.lines] + [1])
    ptx_lines = rep.source.splitlines()
    ptx_rows = [_row(n, text, by_line.get(n), worst) for n, text in enumerate(ptx_lines, 1)]
    files, where = source_map(rep.source)
    sections = []
    per_src: dict[tuple[int, int], dict] = {}
    for n, r in by_line.items():
        if n in where:
            acc = per_src.setdefault(where[n], {k: 0 for k in COUNTS + ("excess_sectors",
                                                                         "bank_conflicts", "dram_sectors")})
            for k in acc:
                acc[k] += r[k]
    for fno, path in sorted(files.items()):
        text = _read(path, rep.filename)
        hit = {ln: acc for (f, ln), acc in per_src.items() if f == fno}
        if text is None or not hit:
            continue
        rows = [_row(n, t, hit.get(n), worst) for n, t in enumerate(text, 1)]
        sections.append(_table(f"CUDA source {path}", rows))
    total = rep.total
    # each finding with the access picture of its worst line (inline SVG: no external file)
    findings = "".join(f"<div class='f'><b>{escape(f.title)}</b>: {escape(f.message)}<br>"
                       f"<i>cause</i>: {escape(f.cause)}<br><i>fix</i>: {escape(f.fix)}</div>"
                       f"<div class='pic'>{rep.access_svg(f.lines[0])}</div>"
                       for f in rep.findings()) or "<p>No findings.</p>"
    summary = ", ".join(f"{k} {total[k]}" for k in SHOWN)
    c = rep.config
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>memory report: {escape(rep.kernel)}</title>
<style>
body {{ font-family: sans-serif; margin: 1em; }}
table {{ border-collapse: collapse; font-size: 12px; }}
td, th {{ border: 1px solid #ccc; padding: 1px 4px; text-align: right; }}
td.c {{ text-align: left; font-family: monospace; white-space: pre; }}
td.n {{ color: #888; }}
.pic {{ overflow-x: auto; }}
.f {{ border-left: 4px solid #c33; padding: 4px 8px; margin: 8px 0; background: #fff4f4; }}
</style></head><body>
<h1>Memory report: {escape(rep.kernel)}</h1>
<p>{escape(rep.filename)}, {escape(rep.target)}; requests by the sm_{rep.sm} rule.
Cache model <b>{escape(c.name)}</b>: L1 {c.l1_size} bytes {c.l1_ways}-way per CTA, L2 {c.l2_size}
bytes {c.l2_ways}-way. {escape(MODEL_NOTE)}</p>
<p><b>Kernel total</b>: {escape(summary)}.</p>
<h2>Findings</h2>{findings}
{''.join(sections)}
{_table("PTX " + rep.filename, ptx_rows)}
</body></html>
"""
