"""The package reads top-down: slotted, patterns -> spec -> ptx, wmma -> checker -> emu | sass -> cli, with no import
cycles (counting imports inside functions too, and the modules `ptxld.lazy.load` defers), and
function-level imports only where start-up time asks for them, each saying so."""
from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

# package -> the packages its modules may import (besides itself)
ALLOWED = {
    "slotted": set(),      # the plain-class helpers every layer's records are built on
    "patterns": {"cachedir"},  # the regular expressions every layer's grammar is compiled with
    "cachedir": set(),     # where the command line keeps what it reuses between runs
    "spec": {"slotted", "patterns"},
    "diagnostics": {"slotted"},
    "io": set(),
    "version": set(),
    "lazy": set(),
    "cliutil": set(),      # the command line's plumbing (argparse): each subsystem's cli.py uses it
    "ptx": {"spec", "diagnostics", "slotted", "patterns"},
    "wmma": {"spec", "slotted", "cliutil"},
    "checker": {"spec", "ptx", "wmma", "diagnostics", "io", "version", "lazy", "slotted", "cliutil", "patterns",
                "cachedir"},
    "emu": {"spec", "ptx", "wmma", "checker", "diagnostics", "io", "slotted", "cliutil"},
    "sass": {"spec", "ptx", "checker", "diagnostics", "io", "slotted", "cliutil"},
    "memreport": {"spec", "ptx", "wmma", "emu", "diagnostics", "io", "slotted", "cliutil"},
}
# top-level modules of the package that sit above everything (the command line, the API)
TOP = {"ptxld", "ptxld.cli"}


def _modules() -> dict[str, Path]:
    return {".".join(p.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__"): p
            for p in SRC.rglob("*.py")}


def _type_checking_lines(tree) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in ast.walk(node):
                out.add(getattr(sub, "lineno", -1))
    return out


def _imports(mods):
    """(module, imported module, line, at top level) for every import of a ptxld module."""
    out = []
    for name, path in mods.items():
        tree = ast.parse(path.read_text())
        top = {id(n) for n in tree.body}
        skip = _type_checking_lines(tree)
        for node in ast.walk(tree):
            if getattr(node, "lineno", None) in skip:
                continue
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".")
                    if path.name != "__init__.py":
                        base = base[:-1]
                    base = base[:len(base) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in mods]
                targets = subs if len(subs) == len(node.names) else [target] + subs
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for t in targets:
                if t in mods and t != name:
                    out.append((name, t, node.lineno, id(node) in top, path))
    return out


def _deferred_loads(mods):
    """(module, deferred module, line, False, path) for every `lazy.load("ptxld...")`: an import
    made later, which the layering and the cycles count like any other."""
    out = []
    for name, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "load"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "lazy"):
                arg = node.args[0] if node.args else None
                assert isinstance(arg, ast.Constant) and arg.value in mods, \
                    f"{path.relative_to(SRC)}:{node.lineno}: lazy.load takes a ptxld module name, written out"
                out.append((name, arg.value, node.lineno, False, path))
    return out


def test_deferred_modules_are_modules_with_a_reason():
    from ptxld import lazy
    mods = _modules()
    loaded = {b for _, b, *_ in _deferred_loads(mods)}
    assert set(lazy.DEFERRED) <= set(mods)
    assert loaded == set(lazy.DEFERRED), "DEFERRED lists exactly the modules some code loads later"
    assert all(len(why) > 30 for why in lazy.DEFERRED.values())


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_no_import_cycles():
    mods = _modules()
    edges: dict[str, set] = {}
    for a, b, *_ in _imports(mods) + _deferred_loads(mods):
        edges.setdefault(a, set()).add(b)
    # iterative Tarjan
    index, low, on, stack, cycles, counter = {}, {}, set(), [], [], [0]

    def strong(v):
        work = [(v, iter(sorted(edges.get(v, ()))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    cycles.append(sorted(comp))
    for v in sorted(mods):
        if v not in index:
            strong(v)
    assert not cycles, cycles


def test_layers_read_top_down():
    bad = []
    mods = _modules()
    for a, b, line, _, path in _imports(mods) + _deferred_loads(mods):
        if a in TOP:
            continue
        pa, pb = _package(a), _package(b)
        if pa == pb or b == "ptxld":
            continue
        allowed = ALLOWED.get(pa)
        assert allowed is not None, f"{a}: package `{pa}` has no place in the layer table"
        if pb not in allowed:
            bad.append(f"{path.relative_to(SRC)}:{line}: {a} imports {b}")
    assert not bad, "\n".join(bad)


# Function-level imports of ptxld modules today: the command line's subcommands, the API's
# `parse`/`format`/`check`/`Module`/`Diagnostic` (the parser is ~22 ms that `ptxld --version`
# does not need), the renderers, the process pool and the wmma tables the checker needs only for
# `wmma.load` (2.4 ms of every `ptxld check` otherwise). The emulator with its memory report and
# the pictures are loaded through `ptxld.lazy`, which says why for each.
# Lower it when one goes; raising it needs a start-up measurement that asks for it.
MAX_FUNCTION_LEVEL_IMPORTS = 15


def test_function_level_imports_say_why():
    """A function-level import is allowed only for start-up time, with a comment saying so on
    the import or the line above; there are only a handful."""
    bad = []
    inside = [row for row in _imports(_modules()) if not row[3]]
    assert len(inside) <= MAX_FUNCTION_LEVEL_IMPORTS, [f"{a} imports {b} (line {line})" for a, b, line, *_ in inside]
    for a, b, line, top, path in inside:
        lines = path.read_text().splitlines()
        near = " ".join(lines[max(0, line - 3):line]).lower()
        if "start-up" not in near and "startup" not in near:
            bad.append(f"{path.relative_to(SRC)}:{line}: {a} imports {b} inside a function")
    assert not bad, "\n".join(bad)


def test_checking_starts_without_numpy():
    """`ptxld check` must not pay NumPy's import (~130 ms, a fifth of checking a 40k-line
    module): the checker and everything it reads from `spec` use plain Python; NumPy arrives
    with the emulator (`lazy.DEFERRED`)."""
    import subprocess
    import sys
    code = ("import sys, ptxld.cli, ptxld.checker.cli; from ptxld.checker import check_source; "
            "check_source(open(sys.argv[1]).read()); print('numpy' in sys.modules)")
    kernel = Path(__file__).resolve().parents[1] / "kernels" / "ptx" / "sm_90"
    sample = sorted(kernel.glob("*.ptx"))[0]
    out = subprocess.run([sys.executable, "-c", code, str(sample)], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False", f"checking {sample.name} imported NumPy"
