"""Source text with offset -> (line, column) mapping."""
from __future__ import annotations

import bisect

from .. import patterns

_NEWLINE = patterns.compile(r"\n")


class Source:
    __slots__ = ("text", "filename", "_line_starts")

    def __init__(self, text: str, filename: str = "<string>"):
        self.text = text
        self.filename = filename
        self._line_starts: list[int] | None = None

    @property
    def line_starts(self) -> list[int]:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in _NEWLINE.finditer(self.text)]
        return self._line_starts

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        starts = self.line_starts
        i = bisect.bisect_right(starts, offset) - 1
        return i + 1, offset - starts[i] + 1

    def line_text(self, line: int) -> str:
        starts = self.line_starts
        if line < 1 or line > len(starts):
            return ""
        s = starts[line - 1]
        e = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[s:e].rstrip("\r")
