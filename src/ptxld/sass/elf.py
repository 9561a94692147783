"""Code images: raw ``.bin`` files (32-byte groups: control word + three instructions) and
cubins (ELF, ``.text.<kernel>`` sections read with pyelftools)."""
from __future__ import annotations

import io
import struct
from dataclasses import dataclass

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from ptxld.sass import control
from ptxld.sass.encoding import decode
from ptxld.sass.errors import SassError
from ptxld.sass.syntax import format_instruction

GROUP = 32
NOP = 0x50B0000000070F00  # what ptxas pads code with


@dataclass(frozen=True)
class CodeLine:
    offset: int
    word: int
    control: int           # the group's control word
    slot: control.Slot
    text: str | None       # None: not a word this package decodes


def code_sections(data: bytes, *, name: str = "<raw>") -> list[tuple[str, bytes]]:
    """[(section name, bytes)]: every ``.text.*`` section of an ELF, else the whole raw image."""
    if data[:4] != b"\x7fELF":
        return [(name, data)]
    try:
        elf = ELFFile(io.BytesIO(data))
        return [(s.name, s.data()) for s in elf.iter_sections() if s.name.startswith(".text")]
    except ELFError as exc:
        raise SassError(f"{name}: not a readable ELF file ({exc})") from None


def cubin_sm(data: bytes) -> int | None:
    """The SM number a cubin is compiled for (52 for sm_52), from its ELF header flags; None for
    data that is not an ELF file. Cubins of ELF ABI version 8 and later (OS ABI 0x41) keep it in
    bits 8-15 of e_flags, older ones in bits 0-7."""
    if data[:4] != b"\x7fELF":
        return None
    try:
        header = ELFFile(io.BytesIO(data)).header
    except ELFError as exc:
        raise SassError(f"not a readable ELF file ({exc})") from None
    flags = header["e_flags"]
    if header["e_ident"]["EI_ABIVERSION"] >= 8:
        return (flags >> 8) & 0xFF
    return flags & 0xFF


def decode_code(code: bytes, *, arch: str = "sm_50", where: str = "<raw>") -> list[CodeLine]:
    if len(code) % GROUP:
        raise SassError(f"{where}: {len(code)} bytes is not a whole number of 32-byte groups "
                        f"(control word + 3 instructions)")
    lines = []
    for base in range(0, len(code), GROUP):
        ctrl, *words = struct.unpack_from("<4Q", code, base)
        for k, (word, slot) in enumerate(zip(words, control.decode_control(ctrl))):
            try:
                text = format_instruction(decode(word, arch=arch))
            except SassError:
                text = "NOP" if word == NOP else None
            lines.append(CodeLine(base + 8 * (k + 1), word, ctrl, slot, text))
    return lines


def encode_code(items: list[tuple[int, control.Slot]]) -> bytes:
    """(word, slot) pairs -> 32-byte groups, padded with NOPs."""
    items = list(items)
    while len(items) % 3:
        items.append((NOP, control.Slot()))
    out = bytearray()
    for i in range(0, len(items), 3):
        chunk = items[i:i + 3]
        out += struct.pack("<4Q", control.encode_control([s for _, s in chunk]),
                           *(w for w, _ in chunk))
    return bytes(out)


def format_code(lines: list[CodeLine], *, annotations: bool = False) -> list[str]:
    """nvdisasm-like listing: offset, text, hex word; control words as hex-only lines."""
    out = []
    for line in lines:
        if line.offset % GROUP == 8:
            slots = " | ".join(control.format_maxas(s) for s in control.decode_control(line.control))
            out.append(f"{'':60}/* {line.control:#018x} */  // {slots}")
        text = line.text if line.text is not None else "<not LDG/LD>"
        if annotations and line.text is not None:
            text += " " + control.format_annotations(line.slot)
        out.append(f"/*{line.offset:04x}*/  {text + ' ;':<50} /* {line.word:#018x} */")
    return out
