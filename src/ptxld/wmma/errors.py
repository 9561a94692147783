"""The one exception type of ptxld.wmma."""


class WmmaError(Exception):
    """A wmma operation cannot be carried out as written: an illegal qualifier combination, a
    stride below the default, a misaligned address or stride, lanes that disagree on ``p`` or
    ``stride``, or fragment registers whose replicated copies disagree.

    The message names the cause; the emulator adds instruction line and thread."""
