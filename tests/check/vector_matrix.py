"""The modules behind data/vector_destinations.json: every ld vector length x type x register
class, and every ordered pair of register classes in a `.v2` destination, one load per line.

`python tests/check/vector_matrix.py` re-measures the verdicts with ptxas 13.0 and rewrites the
data file (test_vector_destinations.py compares ptxld with it).
"""
from __future__ import annotations

import json
import os
import re

TYPES = "b8 b16 b32 b64 b128 u8 u16 u32 u64 s8 s16 s32 s64 f16 f32 f64".split()
PAIR_TYPES = "b8 b16 b32 b64 u8 u16 u32 u64 s8 s16 s32 s64 f32 f64".split()
CLASSES = "b8 b16 b32 b64 b128 u8 u16 u32 u64 s8 s16 s32 s64 f16 f16x2 f32 f64 pred".split()
VECTORS = {"": 1, ".v2": 2, ".v4": 4, ".v8": 8}
DATA = os.path.join(os.path.dirname(__file__), "data", "vector_destinations.json")

HEAD = (".version 8.8\n.target sm_100\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
        ".reg .b64 %addr;\n" + "".join(f".reg .{r} %{r}_<8>;\n" for r in CLASSES)
        + "ld.param.u64 %addr, [p];\n")
FIRST_LINE = HEAD.count("\n") + 1


def _module(lines: list[str]) -> str:
    return HEAD + "\n".join(lines) + "\nret;\n}\n"


def class_module(vec: str, t: str) -> str:
    """`ld.global{vec}.{t}` into each register class, one line per class (CLASSES order)."""
    n = VECTORS[vec]
    lines = []
    for r in CLASSES:
        d = f"%{r}_0" if n == 1 else "{" + ", ".join(f"%{r}_{i}" for i in range(n)) + "}"
        lines.append(f"ld.global{vec}.{t} {d}, [%addr];")
    return _module(lines)


def pairs() -> list[tuple[str, str]]:
    return [(a, b) for a in CLASSES for b in CLASSES if a != b]


def pair_module(t: str) -> str:
    """`ld.global.v2.{t} {a, b}` for every ordered pair of different classes (pairs() order)."""
    return _module([f"ld.global.v2.{t} {{%{a}_0, %{b}_1}}, [%addr];" for a, b in pairs()])


def modules() -> dict[str, str]:
    out = {f"class{vec or '.s'}.{t}": class_module(vec, t) for vec in VECTORS for t in TYPES}
    out.update({f"pair.{t}": pair_module(t) for t in PAIR_TYPES})
    return out


def rejected_lines(text: str, diagnostics) -> str:
    """One character per load line: 1 when some error is reported on it."""
    n = text.count("\n") - FIRST_LINE - 1
    bad = {d.line for d in diagnostics}
    return "".join("1" if FIRST_LINE + i in bad else "0" for i in range(n))


def measure() -> dict[str, str]:
    import subprocess
    import tempfile
    out = {}
    for key, text in modules().items():
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "m.ptx")
            with open(path, "w") as f:
                f.write(text)
            r = subprocess.run(["ptxas", "-arch=sm_100", path, "-o", os.path.join(d, "m.cubin")],
                               capture_output=True, text=True, timeout=120)
        msg = r.stdout + r.stderr
        if re.search(r"line \d+; fatal", msg) or r.returncode not in (0, 255):
            raise SystemExit(f"{key}: ptxas exit {r.returncode}, re-run\n{msg[-1000:]}")
        lines = {int(x) for x in re.findall(r"line (\d+); error", msg)}

        class D:  # the shape rejected_lines reads
            def __init__(self, line):
                self.line = line
        out[key] = rejected_lines(text, [D(x) for x in lines])
    return out


if __name__ == "__main__":
    data = {"ptxas": "13.0.88", "classes": CLASSES, "verdicts": measure()}
    with open(DATA, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote {DATA}")
