"""`format`: the canonical text of a module, verified to be the same module.

The printer lays statements out again; this reads its output back and compares the statements
with the original's, so that a module the printer cannot reproduce (a directive that swallowed
the text after it, say) is refused with FormatError instead of being changed."""
from __future__ import annotations

from .nodes import Block, Directive, Function, Instruction, LabelDef, Module, Variable
from .parser import parse
from .printer import FormatError, format_module, normalize


def format_text(text: str, *, filename: str = "<string>") -> str:
    module = parse(text, filename=filename)
    out = format_module(module)
    again = parse(out, filename=filename)
    if again.diagnostics or _statements(again) != _statements(module):
        raise FormatError(f"{filename}: not formatted: its layout cannot be changed without "
                          "changing what the module says (check it for a statement that runs on)")
    return out


def _statements(module: Module) -> list[tuple]:
    out: list[tuple] = []

    def walk(items) -> None:
        for it in items:
            if isinstance(it, Instruction):
                out.append(("ins", it.opcode, normalize(it.operand_text)))
            elif isinstance(it, Variable):
                out.append(("var", it.space, it.name))
            elif isinstance(it, Directive):
                out.append(("dir", it.name))
            elif isinstance(it, LabelDef):
                out.append(("label", it.name))
            elif isinstance(it, Function):
                out.append(("func", it.name, len(it.params)))
                if it.body is not None:
                    walk(it.body.items)
            elif isinstance(it, Block):
                out.append(("block",))
                walk(it.items)
    walk(module.items)
    return out
