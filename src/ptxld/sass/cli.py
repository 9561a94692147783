"""``ptxld sass``: assemble, disassemble and lower Maxwell/Pascal loads.

    python -m ptxld.sass.cli asm "LDG.E R4, [R2+0x10]"
    python -m ptxld.sass.cli disasm 0xeed4200001070404
    python -m ptxld.sass.cli disasm --file kernel.cubin --arch sm_52
    python -m ptxld.sass.cli lower "ld.global.nc.v4.f32 {%f1,%f2,%f3,%f4}, [%rd1+16];"
    python -m ptxld.sass.cli control 0x001fc400fe2007b1
    python -m ptxld.sass.cli control -- --:-:6:-:1 --:-:-:-:1 "&req={5} ?trans2"
Exit status: 0 success, 1 bad instruction or word, 2 usage or I/O problem.
"""
from __future__ import annotations

import sys
from argparse import BooleanOptionalAction
from pathlib import Path

from ptxld.cliutil import CommandError, FileError, UsageError, argument, echo, group, option
from ptxld.cliutil import Path as PathType
from ptxld.spec import ldg as spec
from ptxld.sass import control, elf
from ptxld.sass.encoding import decode, encode
from ptxld.sass.errors import SassError
from ptxld.sass.lowering import lower as lower_load
from ptxld.sass.syntax import format_instruction, parse_instruction

ARCH = option("--arch", default="sm_50", show_default=True,
              choices=spec.ARCHES, help="target architecture")


class _Failed(CommandError):
    """A bad instruction or word: `error: ...` on stderr, exit 1."""


def _lines_from(texts: list[str], file: str | None) -> list[str]:
    lines = list(texts)
    if file:
        src = sys.stdin.read() if file == "-" else _read_text(file)
        lines += [l for l in src.splitlines() if l.strip() and not l.strip().startswith("//")]
    if not lines:
        raise UsageError("give instructions as arguments or with --file")
    return lines


def _read_text(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError as exc:
        raise FileError(path, hint=exc.strerror)


@group("sass")
def sass() -> None:
    """Maxwell/Pascal SASS loads (LDG, LD): asm, disasm, lower, control."""


@sass.command()
@argument("instructions", nargs="*")
@option("--file", "-f", help="read one instruction a line ('-' for stdin)")
@option("--bin", dest="bin_out", type=PathType(dir_okay=False, writable=True),
        help="also write a raw code image: 32-byte groups, control word first")
@option("--control", dest="show_control", action="store_true",
        help="print each instruction's scheduling slot (maxas notation) too")
@ARCH
def asm(instructions, file, bin_out, show_control, arch) -> None:
    """Assemble LDG/LD instructions to 64-bit words (one hex word per line)."""
    items = []
    for n, line in enumerate(_lines_from(instructions, file), 1):
        try:
            insn, slot = parse_instruction(line)
            word = encode(insn, arch=arch)
        except SassError as exc:
            raise _Failed(f"line {n}: {exc}")
        slot = slot or control.Slot()
        items.append((word, slot))
        extra = f"  {control.format_maxas(slot)}" if show_control else ""
        echo(f"{word:#018x}{extra}")
    if bin_out:
        try:
            Path(bin_out).write_bytes(elf.encode_code(items))
        except OSError as exc:
            raise FileError(bin_out, hint=exc.strerror)


@sass.command()
@argument("words", nargs="*")
@option("--file", "-f", dest="path", type=PathType(exists=True, dir_okay=False),
        help="a raw .bin code image or a cubin (its .text sections)")
@option("--annotations", action="store_true",
        help="with --file: add each slot's &req/&rd/&wr/?sched annotations")
@ARCH
def disasm(words, path, annotations, arch) -> None:
    """Disassemble 64-bit words (hex) or a code image."""
    if not words and not path:
        raise UsageError("give hex words as arguments or a file with --file")
    for w in words:
        try:
            value = int(w, 16)
        except ValueError:
            raise _Failed(f"{w!r} is not a hexadecimal word")
        try:
            echo(format_instruction(decode(value, arch=arch)))
        except SassError as exc:
            raise _Failed(str(exc))
    if path:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise FileError(path, hint=exc.strerror)
        out = []  # printed only once everything decoded: an error leaves stdout empty
        try:
            sm = elf.cubin_sm(data)
            if sm is not None and f"sm_{sm}" not in spec.ARCHES:
                raise SassError(f"{path} is an sm_{sm} cubin; ptxld decodes the SASS of Maxwell and "
                                f"Pascal ({', '.join(spec.ARCHES)}) only")
            for name, code in elf.code_sections(data, name=path):
                out.append(f"// {name}")
                lines = elf.decode_code(code, arch=arch, where=f"{path}:{name}")
                out += elf.format_code(lines, annotations=annotations)
        except SassError as exc:
            raise _Failed(str(exc))
        for text in out:
            echo(text)


@sass.command("control")
@argument("values", nargs="+")
def control_cmd(values) -> None:
    """Decode a control word (one hex value) or encode one from three slots.

    Slots are maxas ``wait:read:write:yield:stall`` (e.g. ``--:-:6:-:1``) or quoted
    annotations (e.g. ``"&wr=0x5 ?trans1"``); put ``--`` before slots that start with ``-``."""
    try:
        if len(values) == 1:
            try:
                word = int(values[0], 16)
            except ValueError:
                raise _Failed(f"{values[0]!r} is not a hexadecimal control word")
            for k, slot in enumerate(control.decode_control(word)):
                fields = " ".join(f"{k2}={v}" for k2, v in control.slot_as_dict(slot).items())
                echo(f"slot {k}: {control.format_maxas(slot):<12} "
                     f"{control.format_annotations(slot):<28} {fields}")
        elif len(values) == 3:
            slots = [control.parse_maxas(v) if v.count(":") == 4 else control.parse_annotations(v)
                     for v in values]
            echo(f"{control.encode_control(slots):#018x}")
        else:
            raise UsageError("give one control word, or three slots")
    except SassError as exc:
        raise _Failed(str(exc))


@sass.command()
@argument("instructions", nargs="*")
@option("--file", type=PathType(dir_okay=False, allow_dash=True),
        help="read the PTX loads from a file (`-`: standard input), one or more")
@option("--uniform", action=BooleanOptionalAction, default=None,
        help="the address is the same in every thread (as for a kernel-parameter "
             "pointer); default: only for symbol addresses")
@option("--address-size", choices=["32", "64"], default="64",
        show_default=True, help=".address_size of the module")
@option("--dlcm", choices=["ca", "cg", "cs", "cv"], default=None,
        help="ptxas -dlcm: the cache operator of global/generic loads that name none")
@option("--flcm", choices=["ca", "cg", "cs", "cv"], default=None,
        help="ptxas -flcm: the cache operator forced on every load but .nc/.volatile ones")
@ARCH
def lower(instructions, file, uniform, address_size, dlcm, flcm, arch) -> None:
    """The SASS that ptxas makes of PTX loads (INSTRUCTIONS, or --file)."""
    text = "\n".join(instructions)
    if file is not None:
        text += "\n" + (sys.stdin.read() if file == "-" else _read_text(file))
    if not text.strip():
        raise UsageError("give a PTX load, or --file")
    try:
        for line in lower_load(text, arch=arch, uniform=uniform, address_size=int(address_size),
                               dlcm=dlcm, flcm=flcm):
            echo(line)
    except SassError as exc:
        raise _Failed(str(exc))


if __name__ == "__main__":
    sass()
