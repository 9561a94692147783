"""What the emulator executes, instruction by instruction: the table behind
docs/emulator-inventory.md (regenerate with `python -m ptxld.emu.inventory docs/emulator-inventory.md`).

Every instruction of the PTX ISA (`ptxld.spec.opcodes.ISA_INSTRUCTIONS`) is `executed`,
`limited` (executed, with the limit named) or `not executed` (with the reason). An instruction
is taken as executed when the emulator has semantics registered for it (a handler or an ALU
builder) and nothing below says otherwise; a test keeps the claims and the registry in step.
"""
from __future__ import annotations

import sys

from ..spec.decode import decode
from ..spec.opcodes import ISA_INSTRUCTIONS
from . import program  # noqa: F401  (the semantics modules register their handlers on import)
from .alu import lookup
from .alu.core import BUILDERS
from .handlers import handler_for

EXECUTED, LIMITED, NOT_EXECUTED = "executed", "limited", "not executed"

#: Instructions executed with a limit, or not executed, and why. Everything else that has
#: semantics registered is executed in full.
NOTES: dict[str, tuple[str, str]] = {
    "tex": (NOT_EXECUTED, "textures are outside the emulator's scope"),
    "tld4": (NOT_EXECUTED, "textures are outside the emulator's scope"),
    "txq": (NOT_EXECUTED, "textures are outside the emulator's scope"),
    "istypep": (NOT_EXECUTED, "textures and surfaces are outside the emulator's scope"),
    "suld": (NOT_EXECUTED, "surfaces are outside the emulator's scope"),
    "sust": (NOT_EXECUTED, "surfaces are outside the emulator's scope"),
    "sured": (NOT_EXECUTED, "surfaces are outside the emulator's scope"),
    "suq": (NOT_EXECUTED, "surfaces are outside the emulator's scope"),
    "shfl": (LIMITED, "the `.sync` forms; `shfl` without `.sync` (removed on sm_70+) is not run"),
    "pmevent": (LIMITED, "performance-monitor events are counted nowhere: a no-op"),
    "nanosleep": (LIMITED, "no time passes: a no-op that lets other threads run"),
    "brkpt": (LIMITED, "a no-op (there is no debugger to stop in)"),
    "cp.async.bulk.tensor": (LIMITED, "the .tile and .im2col modes of sm_90 and sm_100's "
                                      ".tile::gather4/.tile::scatter4; the wide .im2col::w and "
                                      ".im2col::w::128 modes are not run"),
    "cp.async.bulk.prefetch": (LIMITED, "an L2 prefetch hint: no values change"),
    "cp.async.bulk.prefetch.tensor": (LIMITED, "an L2 prefetch hint: no values change"),
    "setmaxnreg": (LIMITED, "register counts are checked; registers are not reallocated"),
    "mma.sp": (LIMITED, "the .f16/.bf16, .tf32, .s8/.u8, .s4/.u4 and .e4m3/.e5m2 forms; the "
                        ".kind::f8f6f4 (.e2m1/.e3m2/.e2m3, sm_120a) and .block_scale forms are "
                        "not run"),
    "wgmma.mma_async.sp": (LIMITED, "every shape and type; a K-major B with the 32-byte swizzle "
                                    "(64 bytes of K per row, wider than its swizzle row) is refused"),
}

#: Texture and surface instructions: the only sm_80-generation instructions allowed to stay
#: unexecuted.
TEXTURE_SURFACE = frozenset({"tex", "tld4", "txq", "istypep", "suld", "sust", "sured", "suq"})


#: Instructions that are a form of an ALU instruction (their name is the mnemonic plus a
#: qualifier): one opcode of each, which the ALU library must resolve for it to count as executed.
ALU_FORMS = {"add.cc": "add.cc.u32", "sub.cc": "sub.cc.u64", "mad.cc": "mad.lo.cc.u32",
             "cvt.pack": "cvt.pack.sat.u8.s32.b32"}


def has_semantics(name: str) -> bool:
    """Whether the emulator registers semantics under this instruction name."""
    if name in ALU_FORMS:
        return lookup(ALU_FORMS[name]) is not None
    d = decode(name)
    if handler_for(d) is not None:
        return True
    return "." not in name and name in BUILDERS


def status(name: str) -> tuple[str, str]:
    """A NOTES entry, else executed when semantics are registered under the name. A form of an
    ALU instruction (`add.cc`, `cvt.pack`) has no name of its own in the registry: NOTES says
    when it runs."""
    if name in NOTES:
        return NOTES[name]
    return (EXECUTED, "") if has_semantics(name) else (NOT_EXECUTED, "not implemented yet")


def rows() -> list[tuple[str, str, int, str, str]]:
    """(section, name, first target family, status, note) of every instruction."""
    return [(section, name, sm, *status(name)) for name, section, sm in ISA_INSTRUCTIONS]


def page() -> str:
    out = ["# Emulator inventory", "",
           "Every instruction of PTX ISA 9.0 and whether `ptxld.RawModule` executes it. Generated from",
           "`src/ptxld/emu/inventory.py` (`python -m ptxld.emu.inventory docs/emulator-inventory.md`);",
           "a test keeps it current and checks each claim against the emulator's registry.", ""]
    counts: dict[str, int] = {}
    for *_, st, _ in rows():
        counts[st] = counts.get(st, 0) + 1
    out.append(", ".join(f"{n} {st}" for st, n in sorted(counts.items())) + ".")
    section = None
    for sec, name, sm, st, note in rows():
        if sec != section:
            out += ["", f"## {sec}", "", "| instruction | from | status | note |", "|---|---|---|---|"]
            section = sec
        out.append(f"| `{name}` | sm_{sm} | {st} | {note} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    text = page()
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
