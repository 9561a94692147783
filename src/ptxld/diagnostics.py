"""The one diagnostic model shared by the parser, the checker and the renderers."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Label:
    """A secondary span with a message (rustc's `----- note` under another part of the line)."""
    start: int
    end: int
    message: str


@dataclass(slots=True)
class Diagnostic:
    code: str                 # stable rule code, e.g. "PTX0203"
    severity: str             # "error" | "warning" | "note"
    message: str
    line: int                 # 1-based
    column: int               # 1-based
    start: int = 0            # byte offsets of the primary span in the source text
    end: int = 0
    label: str = ""           # text under the primary carets
    secondary: list[Label] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    help: str = ""            # a suggested fix in words
    fix: str | None = None    # replacement text for [start, end) when the fix is safe
    section: str = ""         # PTX ISA section the rule comes from
    filename: str = "<string>"
    end_line: int = 0
    end_column: int = 0

    def sort_key(self):
        return (self.filename, self.line, self.column, self.code)
