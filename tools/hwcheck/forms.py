"""Instruction forms whose results the GPU records (tools/hwcheck), for tests/emu/test_hardware.py.

Every form is one PTX line computing `%d` (.b32) from `%a`, `%b`, `%c` (.b32, the low words of a
thread's inputs 0..2), or for the carry chains a small block on 64-bit inputs. A job packs eight
forms into one kernel (`snippets.text`: one 64-byte row of inputs and outputs per thread).
"""
from __future__ import annotations

import random

T = (".u32", ".s32")
SCALAR_SEL = (None, "b0", "b1", "b2", "b3", "h0", "h1")


def _s(reg: str, sel) -> str:
    return reg if sel is None else f"{reg}.{sel}"


def scalar_video(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        op = rng.choice(("vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vset"))
        sat = rng.random() < 0.5 and op != "vset"
        tail = rng.choice((None, "secop", "merge"))
        if op == "vset":
            types = f"{rng.choice(T)}{rng.choice(T)}.{rng.choice(('eq', 'ne', 'lt', 'le', 'gt', 'ge'))}"
        elif op in ("vshl", "vshr"):
            types = f"{rng.choice(T)}{rng.choice(T)}.u32"
        else:
            types = f"{rng.choice(T)}{rng.choice(T)}{rng.choice(T)}"
        opcode = op + types + (".sat" if sat else "")
        if op in ("vshl", "vshr"):
            opcode += rng.choice((".clamp", ".wrap"))
        a, b = _s("%a", rng.choice(SCALAR_SEL)), _s("%b", rng.choice(SCALAR_SEL))
        if tail == "secop":
            out.append(f"{opcode}.{rng.choice(('add', 'min', 'max'))} %d, {a}, {b}, %c;")
        elif tail == "merge":
            out.append(f"{opcode} %d.{rng.choice(SCALAR_SEL[1:])}, {a}, {b}, %c;")
        else:
            out.append(f"{opcode} %d, {a}, {b};")
    return out


def vmad(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        types = "".join(rng.choice(T) for _ in range(3))
        po = rng.random() < 0.25
        opcode = "vmad" + types + (".po" if po else "") + (".sat" if rng.random() < 0.5 else "")
        opcode += rng.choice(("", ".shr7", ".shr15"))
        neg = "none" if po else rng.choice(("none", "a", "b", "ab", "c"))
        a = ("-" if neg in ("a",) else "") + _s("%a", rng.choice(SCALAR_SEL))
        b = ("-" if neg in ("b",) else "") + _s("%b", rng.choice(SCALAR_SEL))
        if neg == "ab":
            a, b = "-" + a, "-" + b
        c = ("-" if neg == "c" else "") + "%c"
        out.append(f"{opcode} %d, {a}, {b}, {c};")
    return out


def simd_video(rng: random.Random, n: int) -> list[str]:
    out = []
    for _ in range(n):
        lanes = rng.choice((2, 4))
        op = rng.choice(("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset"))
        if op == "vset":
            opcode = f"vset{lanes}{rng.choice(T)}{rng.choice(T)}.{rng.choice(('eq', 'ne', 'lt', 'le', 'gt', 'ge'))}"
            opcode += ".add" if rng.random() < 0.4 else ""
        else:
            opcode = f"{op}{lanes}" + "".join(rng.choice(T) for _ in range(3))
            opcode += rng.choice(("", ".sat", ".add"))
        if lanes == 2:
            sel = lambda: "h" + "".join(rng.choice("0123") for _ in range(2))  # noqa: E731
            masks = ("h0", "h1", "h10")
        else:
            sel = lambda: "b" + "".join(rng.choice("01234567") for _ in range(4))  # noqa: E731
            masks = ("b0", "b1", "b10", "b2", "b20", "b21", "b210", "b3", "b30", "b31", "b310", "b32",
                     "b320", "b321", "b3210")
        d = "%d" if rng.random() < 0.5 else f"%d.{rng.choice(masks)}"
        a = "%a" if rng.random() < 0.3 else f"%a.{sel()}"
        b = "%b" if rng.random() < 0.3 else f"%b.{sel()}"
        out.append(f"{opcode} {d}, {a}, {b}, %c;")
    return out


def bits(rng: random.Random) -> list[str]:
    out = [f"bmsk.{m}.b32 %d, %a, %b;" for m in ("clamp", "wrap")]
    out += [f"szext.{m}.{t} %d, %a, %b;" for m in ("clamp", "wrap") for t in ("u32", "s32")]
    out += ["fns.b32 %d, %a, %b, %c;"]
    out += [f"cvt.pack.sat.{t}.s32 %d, %a, %b;" for t in ("u16", "s16")]
    out += [f"cvt.pack.sat.{t}.s32.b32 %d, %a, %b, %c;" for t in ("u8", "s8", "u4", "s4", "u2", "s2")]
    out += [f"dp4a.{x}.{y} %d, %a, %b, %c;" for x in ("u32", "s32") for y in ("u32", "s32")]
    out += [f"dp2a.{h}.{x}.{y} %d, %a, %b, %c;" for h in ("lo", "hi") for x in ("u32", "s32")
            for y in ("u32", "s32")]
    return out


CARRY_BLOCKS = [
    # 128-bit add and subtract of (in1:in0) and (in3:in2), 64-bit words
    """add.cc.u64 %out0, %in0, %in2; addc.cc.u64 %out1, %in1, %in3; addc.u64 %out2, 0, 0;
       sub.cc.u64 %out3, %in0, %in2; subc.cc.u64 %out4, %in1, %in3; subc.u64 %out5, 0, 0;
       mad.lo.cc.u64 %out6, %in0, %in1, %in2; madc.hi.u64 %out7, %in0, %in1, %in3;""",
    # 32-bit words, signed spellings, carry through the middle of a chain
    """mov.b64 {%x0, %x1}, %in0; mov.b64 {%y0, %y1}, %in1;
       add.cc.s32 %z0, %x0, %y0; addc.cc.s32 %z1, %x1, %y1; addc.u32 %w, 0, 0;
       mov.b64 %out0, {%z0, %z1}; cvt.u64.u32 %out1, %w;
       sub.cc.u32 %z0, %x0, %y0; subc.cc.u32 %z1, %x1, %y1; subc.s32 %w, 0, 0;
       mov.b64 %out2, {%z0, %z1}; cvt.u64.u32 %out3, %w;
       mad.hi.cc.u32 %z0, %x0, %y0, %x1; madc.lo.cc.u32 %z1, %x1, %y1, %y0; madc.hi.u32 %w, %x0, %y1, 0;
       mov.b64 %out4, {%z0, %z1}; cvt.u64.u32 %out5, %w;
       mad.lo.cc.s32 %z0, %x0, %y0, %x1; madc.hi.cc.s32 %z1, %x1, %y1, %y0; madc.lo.s32 %w, %x0, %y1, 7;
       mov.b64 %out6, {%z0, %z1}; cvt.u64.u32 %out7, %w;""",
]
CARRY_DECLS = ".reg .b32 %x<2>, %y<2>, %z<2>, %w;"


def jobs(seed: int = 2026) -> list[tuple[str, str, str]]:
    """(name, PTX body, declarations) of every job."""
    rng = random.Random(seed)
    lines = scalar_video(rng, 160) + vmad(rng, 40) + simd_video(rng, 160) + bits(rng)
    out = []
    for k in range(0, len(lines), 8):
        chunk = lines[k:k + 8]
        body = ["cvt.u32.u64 %a, %in0;", "cvt.u32.u64 %b, %in1;", "cvt.u32.u64 %c, %in2;"]
        for j, line in enumerate(chunk):
            body += ["mov.b32 %d, %c;", line, f"cvt.u64.u32 %out{j}, %d;"]
        out.append((f"j{k // 8:03d}", "\n".join(body), ".reg .b32 %a, %b, %c, %d;"))
    for k, block in enumerate(CARRY_BLOCKS):
        out.append((f"carry{k}", block, CARRY_DECLS))
    return out


def inputs(rng, n: int):
    """Thread rows: random words, edge values, and small numbers (shift amounts, positions)."""
    import numpy as np
    x = rng.integers(0, 2**64, size=(n, 8), dtype=np.uint64)
    edges = np.array([0, 1, 2, 31, 32, 33, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF,
                      0x80000000, 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 0x8000000000000000], np.uint64)
    pick = rng.random((n, 8))
    x = np.where(pick < 0.2, edges[rng.integers(0, len(edges), (n, 8))], x)
    x = np.where((pick >= 0.2) & (pick < 0.4), rng.integers(0, 40, (n, 8)).astype(np.uint64), x)
    bytes_ = rng.integers(0, 256, (n, 8, 4)).astype(np.uint64)
    packed = bytes_[..., 0] | bytes_[..., 1] << 8 | bytes_[..., 2] << 16 | bytes_[..., 3] << 24
    x = np.where((pick >= 0.4) & (pick < 0.5), packed, x)
    return x
