"""Maxwell/Pascal SASS loads (LDG, sparse LDG, generic LD): text, 64-bit words, execution,
and lowering from PTX."""
from __future__ import annotations

from ptxld.sass.encoding import LdgInstruction, decode, encode
from ptxld.sass.errors import SassError
from ptxld.sass.lowering import lower as _lower
from ptxld.sass.syntax import format_instruction, parse_instruction


def assemble(text: str, *, arch: str = "sm_50") -> int:
    """The 64-bit word of one LDG/LD instruction (scheduling annotations are accepted and
    belong to the control word, not to this word)."""
    insn, _slot = parse_instruction(text)
    return encode(insn, arch=arch)


def disassemble(word: int, *, arch: str = "sm_50") -> str:
    """nvdisasm's text for one LDG/LD word (without the trailing ``;``)."""
    return format_instruction(decode(word, arch=arch))


def lower(instruction, *, arch: str = "sm_50", **options) -> list[str]:
    """The SASS instructions ptxas makes of PTX loads: text of one or several loads, a parsed
    instruction, or a list (see ``ptxld.sass.lowering``)."""
    return _lower(instruction, arch=arch, **options)


__all__ = ["assemble", "disassemble", "lower", "LdgInstruction", "SassError", "decode", "encode",
           "parse_instruction", "format_instruction"]
