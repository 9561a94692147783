"""Local repairs of front-end defects, so that they do not become false diagnostics.

Each repair is a no-op once the parser is fixed (it only acts on the defective shape).

1. `.local` declarations inside a function are parsed as a `.loc` directive (the statement
   scanner tests `startswith(".loc")` without a word boundary), so their names are missing from
   the block scope. We re-declare them from the directive's raw text.
"""
from __future__ import annotations

import re

from ..ptx.nodes import Variable

_DECL = re.compile(r"""^\s*\.local\s+((?:\.[\w:]+\s+|\d+\s+)*)   # qualifiers (.align 8 .b8 ...)
                       ([A-Za-z_$%][\w$]*)\s*(<\s*\d+\s*>)?""", re.X)


def repair(module) -> None:
    for func in list(module.functions.values()):
        if func.body is None:
            continue
        stack = [(func.body, func)]
        while stack:
            block, f = stack.pop()
            for it in block.items:
                kind = getattr(it, "kind", None)
                if kind == "block":
                    stack.append((it, f))
                elif kind == "directive" and it.name == ".loc" and it.raw.lstrip().startswith(".local"):
                    _redeclare(module, block, f, it)


def _redeclare(module, block, func, d) -> None:
    m = _DECL.match(d.raw)
    if not m or block.scope is None:
        return
    quals = m.group(1).split()
    vtype = next((q for q in reversed(quals) if q.startswith(".") and q not in (".align",)), ".b8")
    name = m.group(2)
    var = Variable(name, ".local", vtype, d.start, d.end, name_start=d.start + d.raw.find(name),
                   module=module, function=func)
    if m.group(3):
        var.range_count = int(m.group(3).strip("<> "))
        block.scope.ranges.setdefault(name, var)
    else:
        block.scope.names.setdefault(name, var)
