"""Immediates and registers swapped in real PTX: the mutations behind test_immediate_hoist.py.

`hoist`: every immediate operand moved into a register.
`add.s32 %r3, %r2, 5;` becomes `{ .reg .b32 %hoist0; mov.b32 %hoist0, 5; add.s32 %r3, %r2, %hoist0; }`
on the same line (so ptxas's line numbers still name the original line). A literal inside an
address `[...]` or a call's parameter list stays. Which register type a position takes is
ptxas's call: each line is tried with 32-bit, then 64-bit, then 16-bit registers (a float literal
with its float type first), and a line ptxas refuses in every form keeps its immediate (a
position that must be one: lop3's table, mma.sp's selector).

`fold`: the other way round, a register that one `mov` sets to a literal (and nothing else
writes) replaced by that literal wherever ptxas takes one.
"""
from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

# an instruction line: optional guard, opcode, operands, `;`
_INSTRUCTION = re.compile(r"^(?P<indent>\s*)(?P<guard>@!?%\w+\s+)?(?P<opcode>[a-z][\w.:]*)(?P<operands>\s[^;]*)?;\s*$")
_LITERAL = re.compile(r"-?(?:0[fF][0-9A-Fa-f]{8}|0[dD][0-9A-Fa-f]{16}|0[xX][0-9A-Fa-f]+|\d+)U?")
_CANDIDATES = {"f": (".f32", ".b32"), "d": (".f64", ".b64"), "i": (".b32", ".b64", ".b16")}
ROUNDS = 3


def _kind(literal: str) -> str:
    body = literal.lstrip("-")
    return body[1].lower() if body[:2].lower() in ("0f", "0d") else "i"


def literals(operands: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of each literal operand outside `[...]` and `(...)`, a whole operand
    or a whole element of a `{...}` vector."""
    out, depth, i = [], 0, 0
    while i < len(operands):
        c = operands[i]
        if c in "[(":
            depth += 1
        elif c in "])":
            depth -= 1
        elif depth == 0 and (c == "-" or c.isdigit()):
            before = operands[:i].rstrip()
            m = _LITERAL.match(operands, i)
            if m and (not before or before[-1] in ",{") and operands[m.end():].lstrip()[:1] in (",", "}", ""):
                out.append((m.start(), m.end(), m.group()))
                i = m.end()
                continue
        i += 1
    return out


def _hoisted(line: str, choice: int) -> str | None:
    m = _INSTRUCTION.match(line)
    if m is None or m["operands"] is None:
        return None
    ops = m["operands"]
    found = literals(ops)
    if not found:
        return None
    decls, movs, pieces, last = [], [], [], 0
    for k, (start, end, text) in enumerate(found):
        options = _CANDIDATES[_kind(text)]
        t = options[min(choice, len(options) - 1)]
        decls.append(f".reg {t} %hoist{k};")
        movs.append(f"mov{t} %hoist{k}, {text};")
        pieces += [ops[last:start], f"%hoist{k}"]
        last = end
    body = (m["guard"] or "") + m["opcode"] + "".join(pieces) + ops[last:] + ";"
    return m["indent"] + "{ " + " ".join(decls + movs + [body]) + " }"


def _refused_lines(text: str, arch: str) -> set[int]:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "hoisted.ptx"
        path.write_text(text)
        r = subprocess.run(["ptxas", f"-arch={arch}", str(path), "-o", str(Path(d) / "out.cubin")],
                           capture_output=True, text=True)
    return {int(n) - 1 for n in re.findall(r"line (\d+); error", r.stderr)}


def hoist(text: str, arch: str) -> tuple[str, int]:
    """The text with every immediate ptxas lets stand in a register moved into one, and how many
    lines changed."""
    lines = text.splitlines()
    out = list(lines)
    pending = {i for i, ln in enumerate(lines) if _hoisted(ln, 0) is not None}
    done = set()
    for choice in range(ROUNDS):
        for i in pending:
            out[i] = _hoisted(lines[i], choice)
        refused = _refused_lines("\n".join(out) + "\n", arch)
        done |= pending - refused
        pending &= refused
        for i in pending:
            out[i] = lines[i]
        if not pending:
            break
    final = "\n".join(out) + "\n"
    assert not _refused_lines(final, arch), "the hoisted text must assemble"
    return final, len(done)


_MOV_LITERAL = re.compile(r"^\s*mov\.[a-z]\d+\s+(%\w+),\s*(" + _LITERAL.pattern + r");\s*$")


def _written(line: str) -> list[str]:
    """The registers an instruction line names in its first operand: its destination (with a
    `{...}` vector, a `(...)` call result and a `p|q` pair whole), or for st-like instructions
    none (their first operand is an address)."""
    m = _INSTRUCTION.match(line)
    if m is None or m["operands"] is None:
        return []
    ops = m["operands"].lstrip()
    if ops[:1] in "{(":
        first = ops[:ops.find("}" if ops[0] == "{" else ")") + 1]
    else:
        first = ops.split(",")[0]
    return re.findall(r"%\w+", first) if not first.startswith("[") else []


def _replace_uses(line: str, reg: str, literal: str) -> str | None:
    m = _INSTRUCTION.match(line)
    if m is None or m["operands"] is None:
        return None
    ops, out, depth, i, changed = m["operands"], [], 0, 0, False
    pat = re.compile(re.escape(reg) + r"(?![\w$])")
    while i < len(ops):
        c = ops[i]
        depth += c in "[("
        depth -= c in "])"
        hit = pat.match(ops, i) if depth == 0 and c == "%" else None
        if hit:
            out.append(literal)
            i, changed = hit.end(), True
            continue
        out.append(c)
        i += 1
    if not changed:
        return None
    return m["indent"] + (m["guard"] or "") + m["opcode"] + "".join(out) + ";"


def fold(text: str, arch: str) -> tuple[str, int]:
    """The text with each register that only a `mov` of a literal writes replaced by the literal
    in every use ptxas accepts, and how many lines changed."""
    lines = text.splitlines()
    defs: dict[str, list[int]] = {}
    for i, ln in enumerate(lines):
        for reg in _written(ln):
            defs.setdefault(reg, []).append(i)
    out = list(lines)
    changed = set()
    for i, ln in enumerate(lines):
        m = _MOV_LITERAL.match(ln)
        if m is None or defs.get(m.group(1)) != [i]:
            continue
        for j, use in enumerate(out):
            if j != i:
                new = _replace_uses(use, m.group(1), m.group(2))
                if new is not None:
                    out[j] = new
                    changed.add(j)
    refused = _refused_lines("\n".join(out) + "\n", arch)
    for j in refused:
        out[j] = lines[j]
    final = "\n".join(out) + "\n"
    if refused and _refused_lines(final, arch):
        return text, 0            # a refusal that reverting its lines did not cure: leave the file
    return final, len(changed - refused)
