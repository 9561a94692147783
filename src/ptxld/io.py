"""Reading PTX files: decoding, binary detection and size limits, with errors a user can act on."""
from __future__ import annotations

import sys

MAX_BYTES = 512 * 1024 * 1024


class InputError(Exception):
    """A file cannot be read as PTX text at all (missing, unreadable, binary)."""


def read_ptx(path: str) -> tuple[str, str | None]:
    """(text, warning). `-` reads standard input (named `<stdin>` in messages). Invalid UTF-8 is
    replaced and reported."""
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(path, "rb") as f:
                data = f.read(MAX_BYTES + 1)
    except OSError as e:
        raise InputError(f"{name}: cannot read: {e.strerror or e}") from None
    if len(data) > MAX_BYTES:
        raise InputError(f"{name}: larger than {MAX_BYTES // (1024 * 1024)} MiB; not read")
    if b"\x00" in data[:65536] or data[:4] == b"\x7fELF":
        what = "an ELF object (cubin?)" if data[:4] == b"\x7fELF" else "binary data"
        raise InputError(f"{name}: this is {what}, not PTX text"
                         + ("; try `ptxld sass disasm`" if data[:4] == b"\x7fELF" else ""))
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        return (data.decode("utf-8", errors="replace"),
                f"{name}:{line}:{col}: invalid UTF-8 byte 0x{data[e.start]:02x}; PTX is ASCII text "
                "(bad bytes were replaced)")
