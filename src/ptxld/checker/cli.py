"""`ptxld check`, `ptxld explain`, `ptxld rules`."""
from __future__ import annotations

import gc
import os
import re
import sys
from argparse import BooleanOptionalAction

from .. import lazy, patterns
from ..cliutil import BadParameter, Path, UsageError, argument, command, echo, option
from ..io import InputError, read_ptx
from ..ptx.loads import WmmaLoadModel
from ..spec.targets import DEFAULT_TARGET
from . import check_source, opcache
from .config import ConfigError, settings_for
from .docs import rule_page
from .fix import fix_source
from .registry import all_rules, get
from .selection import SelectionError, enabled_codes

# Below this many bytes in total, starting worker processes costs more than it saves.
PARALLEL_MIN_BYTES = 2_000_000
# One module this big is split by functions over the cores (see parallel.py).
PARALLEL_MIN_BYTES_ONE = 1_000_000


def _check_text(args):
    text, name, strict, select = args
    return check_source(text, filename=name, strict=strict, select=select)


def _check_texts(jobs):
    results = [_check_text(j) for j in jobs]
    opcache.save()  # in a worker: what it worked out
    return results


@command("check")
@argument("files", nargs="+", type=Path(allow_dash=True))
@option("--format", dest="fmt", choices=["text", "json", "sarif"], default="text",
        help="Output format (SARIF 2.1.0 for code scanning).")
@option("--strict", action="store_true", help="Rules of the PTX ISA text that ptxas does not enforce "
        "become errors.")
@option("--select", action="append", default=[], metavar="CODES",
        help="Check only these rules: codes or prefixes, comma-separated (PTX02, PTX0301). "
        "Replaces the configuration's `select`.")
@option("--ignore", action="append", default=[], metavar="CODES",
        help="Do not check these rules: codes or prefixes, comma-separated. The most specific "
        "of --select/--ignore wins (PTX02 with --ignore PTX0203: every PTX02xx rule but one).")
@option("--config", type=Path(exists=True, dir_okay=False),
        help="Read settings from this ptxld.toml or pyproject.toml instead of the one found "
        "upwards from each file.")
@option("--isolated", action="store_true", help="Read no configuration file.")
@option("--color", action=BooleanOptionalAction, default=None, help="Colour the text output (default: "
        "on a terminal, unless NO_COLOR is set; --color colours it through a pipe too).")
@option("--fix", action="store_true", help="Apply the safe fixes to the files (standard input: print "
        "the fixed text, and the report on standard error), then report what is left.")
@option("--no-cache", action="store_true", help="Do not read or write the cache (what is worked out per "
        "opcode, what passed per module header, the compiled regular expressions; kept in $PTXLD_CACHE_DIR, "
        "or $XDG_CACHE_HOME/ptxld; PTXLD_NO_CACHE=1 does the same).")
def check_cmd(files, fmt, strict, color, fix, select, ignore, config, isolated, no_cache):
    """Check the PTX in FILES (`-` for standard input) against the PTX ISA and ptxas 13.0.

    Settings come from the nearest ptxld.toml or pyproject.toml `[tool.ptxld]` above each file,
    then the command line; `// ptxld: ignore[CODE]` in a line silences CODE there.

    Exit status: 0 no errors, 1 errors found, 2 a file could not be read (or a bad setting)."""
    # A short-lived process building one big tree: the cyclic collector would only walk it.
    gc.disable()
    texts, io_failed, undecodable = [], False, set()
    settings, found = [], {}  # (strict, enabled codes) per text; configuration files read
    # `--fix --format json -`: the fixed text is on stdout, the JSON report alone on stderr
    quiet_stderr = fix and fmt != "text" and "-" in files
    files, io_failed = _expand_directories(files)
    for file in files:
        try:
            text, warning = read_ptx(file)
        except InputError as e:
            echo(f"error: {e}", err=True)
            io_failed = True
            continue
        if warning:
            if not quiet_stderr:  # the report carries it as an error (non-ASCII)
                echo(f"warning: {warning}", err=True)
            undecodable.add(len(texts))
        texts.append((file if file != "-" else "<stdin>", text))
        try:
            settings.append(_settings(file, strict, select, ignore, config, isolated, found))
        except (ConfigError, SelectionError) as e:
            raise UsageError(str(e))
    if fix:
        results, report_to_stderr = _fix_files(texts, settings, undecodable, quiet_stderr)
    else:
        results, report_to_stderr = _check_all(texts, settings, cache=not no_cache), False
    named = [(name, diags) for (name, _), diags in zip(texts, results)]
    errors = sum(d.severity == "error" for _, ds in named for d in ds)
    if fmt != "text" or any(diags for _, diags in named):
        # start-up time: the renderers only when there is something to print
        from .render import render_json, render_sarif, render_text, use_color
    if fmt == "json":
        echo(render_json(named), nl=False, err=report_to_stderr)
    elif fmt == "sarif":
        echo(render_sarif(named, dict(texts)), nl=False, err=report_to_stderr)
    elif any(diags for _, diags in named):
        stream = sys.stderr if report_to_stderr else sys.stdout
        paint = use_color(stream) if color is None else color
        for (name, text), (_, diags) in zip(texts, named):
            if diags:
                echo(render_text(diags, text, color=paint), nl=False, err=report_to_stderr, color=paint)
        warnings = sum(d.severity == "warning" for _, ds in named for d in ds)
        if errors or warnings:
            echo(f"{len(texts)} file(s) checked: {errors} error(s), {warnings} warning(s)",
                 err=report_to_stderr)
    code = 2 if io_failed else 1 if errors else 0
    if sys.stdout is sys.__stdout__ and sys.stderr is sys.__stderr__:
        # A big module is millions of objects: skip tearing them down at interpreter exit.
        sys.stdout.flush()
        sys.stderr.flush()
        patterns.save()  # (the command line's `finally` is skipped too)
        os._exit(code)
    sys.exit(code)


def _settings(file: str, strict: bool, select: tuple, ignore: tuple, config, isolated: bool,
              found: dict) -> tuple[bool, list | None]:
    """(strict, the codes to check or None for all) for one file: its configuration file's
    settings, then the command line's."""
    got = settings_for(file, config, isolated, found)
    enabled = enabled_codes([(got.select, got.ignore), (list(select) or None, list(ignore))])
    return strict or got.strict, None if enabled is None else sorted(enabled)


def _expand_directories(files) -> tuple[list, bool]:
    """FILES with each directory replaced by the `.ptx` files under it (sorted); and whether a
    directory held none (an I/O problem, as a missing file is)."""
    out, failed = [], False
    for f in files:
        if f != "-" and os.path.isdir(f):
            found = sorted(os.path.join(d, n) for d, _, names in os.walk(f) for n in names
                           if n.endswith(".ptx"))
            if not found:
                echo(f"error: {f}: a directory with no .ptx files", err=True)
                failed = True
            out += found
        else:
            out.append(f)
    return out, failed


def _fix_files(texts: list, settings: list, undecodable: set, quiet: bool = False) -> tuple[list, bool]:
    """Fix each text (rewriting its file; standard input's goes to standard output) and return
    the diagnostics left in each, and whether the report must go to standard error. `quiet`:
    no progress lines on standard error (a machine-readable report goes there)."""
    results, to_stdout = [], None
    for i, (name, text) in enumerate(texts):
        strict, select = settings[i]
        if i in undecodable:  # writing it back would replace its undecodable bytes
            if not quiet:
                echo(f"{name}: not fixed: it is not valid UTF-8", err=True)
            results.append(_check_text((text, name, strict, select)))
            continue
        fixed, applied, diags = fix_source(text, filename=name, strict=strict, select=select)
        results.append(diags)
        texts[i] = (name, fixed)
        if name == "<stdin>":
            to_stdout = fixed
        elif applied:
            with open(name, "w", encoding="utf-8", newline="") as f:
                f.write(fixed)
        if applied and not quiet:
            echo(f"{name}: fixed {applied} problem(s)", err=True)
    if to_stdout is not None:
        echo(to_stdout, nl=False)
    return results, to_stdout is not None


def _check_all(texts: list, settings: list, cache: bool = True) -> list:
    """The diagnostics of each text, using every core for many or big texts."""
    jobs = [(t, name, strict, select) for (name, t), (strict, select) in zip(texts, settings)]
    if cache:
        opcache.load()  # before any worker starts: every process has it
    try:
        return _check_jobs(jobs)
    finally:
        opcache.stop_verdicts()


def _check_jobs(jobs: list) -> list:
    cores = os.cpu_count() or 1
    many = len(jobs) > 1 and sum(len(job[0]) for job in jobs) >= PARALLEL_MIN_BYTES
    big = len(jobs) == 1 and len(jobs[0][0]) >= PARALLEL_MIN_BYTES_ONE
    if (many or big) and cores > 1:
        # start-up time: the process pool only for big inputs
        from .parallel import check_source_parallel, fork_map
    if many and cores > 1:
        shares = [jobs[i::cores] for i in range(min(cores, len(jobs)))]
        by_share = fork_map(_check_texts, shares)
        results = [None] * len(jobs)
        for i, share in enumerate(by_share):
            results[i::cores] = share
    elif big and cores > 1:
        text, name, strict, select = jobs[0]
        results = [check_source_parallel(text, filename=name, strict=strict, select=select)]
    else:
        results = _check_texts(jobs)
    return results


_CODE = patterns.compile(r"^PTX\d{4}$", re.I)


@command("explain")
@argument("what")
@option("--target", default=DEFAULT_TARGET, show_default=True, help="Check the instruction for this "
        "target and show its wmma fragment layout (default: the newest target ptxas 13.0 knows).")
@option("--svg", dest="svg_path", type=Path(dir_okay=False, writable=True),
        help="wmma.load/store: also write the fragment map as an SVG picture.")
@option("--png", dest="png_path", type=Path(dir_okay=False, writable=True),
        help="wmma.load/store: also write the fragment map as a PNG picture.")
def explain_cmd(what, target, svg_path, png_path):
    """Explain a load (`"ld.global.v4.f32 {%f1,%f2,%f3,%f4}, [%rd1];"`) or a rule code (`PTX0203`)."""
    if _CODE.match(what.strip()):
        rule = get(what.strip())
        if rule is None:
            raise UsageError(f"no rule {what.strip().upper()}; `ptxld rules` lists them")
        echo(rule_page(rule), nl=False)
        return
    for path, opt in ((svg_path, "--svg"), (png_path, "--png")):
        if path:
            _check_output_path(path, opt)  # before any work, not after printing it
    # start-up time: the explainer and the renderer only for an instruction
    from .explain import ExplainError, explain_instruction
    from .render import render_text, use_color
    try:
        result = explain_instruction(what, target=target)
    except ExplainError as e:
        raise UsageError(str(e))
    if (svg_path or png_path) and result.text:
        if not isinstance(result.model, (WmmaLoadModel, dict)):
            raise UsageError("--svg/--png draw the fragments of wmma.load / wmma.store and the "
                             "matrix instructions; an `ld` has no fragment to draw")
    if result.diagnostics:
        # what is wrong comes first, on standard output with the description (one report)
        echo(render_text(result.diagnostics, result.source, color=use_color(sys.stdout)), nl=False)
    if result.text:
        if result.diagnostics:
            echo()
        echo(result.text, nl=False)
    else:
        echo("not explained: the instruction is not a valid load (see above)")
    if (svg_path or png_path) and result.text:
        _write_fragment_pictures(result.model, target, svg_path, png_path)
    if result.errors:
        sys.exit(1)


def _check_output_path(path: str, option: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise BadParameter(f"{path}: the folder {folder} does not exist", param_hint=option)
    if not os.access(folder, os.W_OK):
        raise BadParameter(f"{path}: the folder {folder} is not writable", param_hint=option)


def _write_fragment_pictures(model, target: str, svg_path, png_path) -> None:
    if isinstance(model, dict):       # mma.sync / ldmatrix / stmatrix / movmatrix / wgmma
        if png_path:
            raise UsageError("--png draws wmma fragments; use --svg for this instruction")
        svg = lazy.load("ptxld.wmma.matrix_render").fragments_svg(next(iter(model.values())).name, model)
        with open(svg_path, "w", encoding="utf-8") as f:
            f.write(svg)
        echo(f"wrote {svg_path}", err=True)
        return
    render = lazy.load("ptxld.wmma.render")
    args = (model.shape, model.matrix, model.element_type, model.layout, target)
    if svg_path:
        with open(svg_path, "w", encoding="utf-8") as f:
            f.write(render.fragment_svg(*args))
        echo(f"wrote {svg_path}", err=True)
    if png_path:
        with open(png_path, "wb") as f:
            f.write(render.fragment_png(*args))
        echo(f"wrote {png_path}", err=True)


@command("rules")
@option("--format", dest="fmt", choices=["text", "json"], default="text")
def rules_cmd(fmt):
    """List every rule with its code, severity and summary."""
    rules = all_rules()
    if fmt == "json":
        import json
        echo(json.dumps([{"code": r.code, "name": r.name, "severity": r.severity,
                          "isa_only": r.isa_only, "summary": r.summary, "section": r.section}
                         for r in rules], indent=2))
        return
    for r in rules:
        sev = r.severity + ("*" if r.isa_only else "")
        echo(f"{r.code}  {sev:<8} {r.name:<36} {r.summary}")
    echo("\n* a warning by default (ptxas accepts it); an error with `ptxld check --strict`")
