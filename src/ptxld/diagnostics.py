"""The one diagnostic model shared by the parser, the checker and the renderers."""
from __future__ import annotations

from .slotted import Value


class Label(Value):
    """A secondary span with a message (rustc's `----- note` under another part of the line)."""
    __slots__ = FIELDS = ("start", "end", "message")

    def __init__(self, start: int, end: int, message: str):
        self.start, self.end, self.message = start, end, message


class Diagnostic(Value):
    __slots__ = FIELDS = ("code", "severity", "message", "line", "column", "start", "end", "label",
                          "secondary", "notes", "help", "fix", "section", "filename", "end_line", "end_column")

    def __init__(self, code: str, severity: str, message: str, line: int, column: int, start: int = 0,
                 end: int = 0, label: str = "", secondary: list[Label] | None = None,
                 notes: list[str] | None = None, help: str = "", fix: str | None = None, section: str = "",
                 filename: str = "<string>", end_line: int = 0, end_column: int = 0):
        self.code = code              # stable rule code, e.g. "PTX0203"
        self.severity = severity      # "error" | "warning" | "note"
        self.message = message
        self.line, self.column = line, column   # 1-based
        self.start, self.end = start, end       # offsets of the primary span in the source text
        self.label = label            # text under the primary carets
        self.secondary = [] if secondary is None else secondary
        self.notes = [] if notes is None else notes
        self.help = help              # a suggested fix in words
        self.fix = fix                # replacement text for [start, end) when the fix is safe
        self.section = section        # PTX ISA section the rule comes from
        self.filename = filename
        self.end_line, self.end_column = end_line, end_column

    def replace(self, **changes) -> "Diagnostic":
        """A copy with some fields changed (as `dataclasses.replace`)."""
        fields = {n: getattr(self, n) for n in self.FIELDS}
        fields.update(changes)
        return Diagnostic(**fields)

    def sort_key(self):
        return (self.filename, self.line, self.column, self.code)
