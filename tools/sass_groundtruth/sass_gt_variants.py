"""The PTX load variants compiled for the ground truth: one kernel per variant."""
from __future__ import annotations

import re
from dataclasses import dataclass

# (qualifier prefix after "ld", whether the address is generic)
CLASSES = [
    (".global", False), (".global.ca", False), (".global.cg", False), (".global.cs", False),
    (".global.lu", False), (".global.cv", False),
    (".global.nc", False), (".global.ca.nc", False), (".global.cg.nc", False),
    (".global.cs.nc", False), (".global.nc.cg", False), (".global.nc.cs", False),
    (".volatile.global", False),
    ("", True), (".ca", True), (".cg", True), (".cs", True), (".lu", True), (".cv", True),
    (".volatile", True),
]
TYPES = ["u8", "s8", "b8", "u16", "s16", "b16", "u32", "s32", "b32", "f32",
         "u64", "s64", "b64", "f64"]
BITS = {t: int(t[1:]) for t in TYPES}
SHAPES = ([("", t) for t in TYPES] + [(".v2", t) for t in TYPES]
          + [(".v4", t) for t in TYPES if BITS[t] <= 32])
OFFSETS = [0x10, -0x10, 0x7FFFF0, -0x800000, 0x800000, -0x800010, 0xFFFFF0, 0x123456,
           -0x123456, 0x7FFFFFF0, 0x1000000, -0x1000000, 0x100000000, 0x180000010]
# rejected by ptxas for sm_50: lowering must reject them too
REJECTED = [
    "ld.global.b128 %rq1, [%rd3];", "ld.global.relaxed.gpu.u32 %r1, [%rd3];",
    "ld.global.L1::evict_last.u32 %r1, [%rd3];", "ld.global.v4.u64 {%rd10,%rd11,%rd12,%rd13}, [%rd3];",
    "ld.global.u32 %r1, [16];", "ld.global.L2::128B.u32 %r1, [%rd3];",
    "ld.global.acquire.sys.u32 %r1, [%rd3];", "ld.weak.global.u32 %r1, [%rd3];",
]


@dataclass(frozen=True)
class Variant:
    ptx: str            # the load line, registers as the kernel declares them
    uniform: bool       # address is the parameter pointer itself (same for every thread)
    generic: bool
    dests: tuple[str, ...]
    bits: int
    pred: str = ""      # "", "@%p1 " or "@!%p1 "
    symbol: bool = False


def _regs(t: str, n: int) -> tuple[str, ...]:
    bits = BITS[t]
    cls = "%fd" if t == "f64" else "%rd" if bits == 64 else "%f" if t == "f32" else "%r"
    first = 10 if cls == "%rd" else 1
    return tuple(f"{cls}{first + i}" for i in range(n))


def _addr_reg(generic: bool, uniform: bool) -> str:
    if generic:
        return "%rd1" if uniform else "%rd6"
    return "%rd3"


def make(cls: str, generic: bool, vec: str, t: str, *, uniform: bool, offset: int = 0,
         pred: str = "", symbol: bool = False) -> Variant:
    n = int(vec[2:]) if vec else 1
    dests = _regs(t, n)
    dst = dests[0] if n == 1 else "{" + ", ".join(dests) + "}"
    base = "gbuf" if symbol else _addr_reg(generic, uniform)
    addr = f"[{base}]" if offset == 0 else f"[{base}+{offset}]"
    line = f"{pred}ld{cls}{vec}.{t} {dst}, {addr};"
    return Variant(line, uniform or symbol, generic, dests, BITS[t], pred, symbol)


def all_variants() -> list[Variant]:
    out = []
    for cls, generic in CLASSES:
        for vec, t in SHAPES:
            out.append(make(cls, generic, vec, t, uniform=False))
            if (BITS[t] * (int(vec[2:]) if vec else 1)) == 128 or (vec == "" and t in ("u32", "f64")):
                out.append(make(cls, generic, vec, t, uniform=True))
    for cls, generic in [(".global", False), (".global.nc", False), ("", True), (".global.cg", False)]:
        for vec, t in [("", "u32"), ("", "s8"), (".v4", "f32"), (".v2", "f64"), ("", "u64")]:
            for off in OFFSETS:
                out.append(make(cls, generic, vec, t, uniform=True, offset=off))
    for cls, generic in [(".global", False), (".global.nc", False), ("", True)]:
        for vec, t in [("", "u32"), ("", "u16"), (".v2", "u32"), (".v4", "f32")]:
            for pred in ("@%p1 ", "@!%p1 "):
                out.append(make(cls, generic, vec, t, uniform=False, pred=pred))
        for vec, t, off in [("", "u32", 0), ("", "u32", 16), (".v4", "f32", 32), ("", "s16", 0x900000)]:
            if not generic:
                out.append(make(cls, generic, vec, t, uniform=True, offset=off, symbol=True))
    return out


def kernel(name: str, v: Variant, *, address_size: int = 64, target: str = "sm_50") -> str:
    ptr = "u64" if address_size == 64 else "u32"
    r = "%rd" if address_size == 64 else "%r"
    lines = [f".visible .entry {name}(.param .{ptr} p, .param .{ptr} q)", "{",
             "  .reg .pred %p<3>; .reg .b32 %r<20>; .reg .b64 %rd<20>; .reg .f32 %f<9>;"
             " .reg .f64 %fd<9>;"
             + (" .reg .b128 %rq<3>;" if "%rq" in v.ptx else "")]
    if address_size == 64:
        lines += ["  ld.param.u64 %rd1, [p];", "  ld.param.u64 %rd2, [q];",
                  "  cvta.to.global.u64 %rd3, %rd1;", "  cvta.to.global.u64 %rd4, %rd2;",
                  "  mov.u32 %r18, %tid.x;", "  setp.ne.u32 %p1, %r18, 0;"]
        if not v.uniform:
            lines += ["  mul.wide.u32 %rd9, %r18, 64;",
                      "  add.s64 %rd6, %rd1, %rd9;" if v.generic else "  add.s64 %rd3, %rd3, %rd9;"]
    ptx = v.ptx
    if address_size == 32:
        ptx = re.sub(r"%rd(3|6|1)\b", lambda m: {"3": "%r13", "6": "%r11", "1": "%r11"}[m.group(1)],
                     ptx)
        lines += ["  ld.param.u32 %r11, [p];", "  ld.param.u32 %r12, [q];",
                  "  cvta.to.global.u32 %r13, %r11;", "  cvta.to.global.u32 %r14, %r12;",
                  "  mov.u32 %r18, %tid.x;", "  setp.ne.u32 %p1, %r18, 0;"]
        if not v.uniform:
            lines += ["  mul.lo.u32 %r19, %r18, 64;",
                      "  add.u32 %r11, %r11, %r19;" if v.generic else "  add.u32 %r13, %r13, %r19;"]
    lines.append("  " + ptx)
    out_base = "%rd4" if address_size == 64 else "%r14"
    for i, d in enumerate(v.dests):
        w = 64 if v.bits == 64 else 32
        lines.append(f"  st.global.b{w} [{out_base}+{i * w // 8}], {d};")
    lines += ["  ret;", "}"]
    return "\n".join(lines)


def module(kernels: list[str], *, address_size: int = 64, target: str = "sm_50") -> str:
    head = [".version 7.0" if address_size == 64 else ".version 7.0", f".target {target}",
            f".address_size {address_size}", ".global .align 16 .b8 gbuf[16777216];", ""]
    return "\n".join(head + kernels) + "\n"
