"""Reading JSON Lines with a limit on the length of a line, for ``dokosim score`` and every line
reader: a line longer than ``MAX_LINE_BYTES`` is not held in memory but answered as one error
line, and the lines after it are read as usual (``/dev/zero`` or a file without newlines cannot
exhaust the memory)."""
from __future__ import annotations

from typing import BinaryIO, Iterator

MAX_LINE_BYTES = 1 << 20
"""The longest line read, without its ``\\n`` (1 MiB: a full game record is a few kB)."""
MAX_SKIP_BYTES = 1 << 28
"""How far past ``MAX_LINE_BYTES`` an over-long line is skipped to find its end (256 MiB); past
that the rest of the input is not read (one error line says so)."""


class LineTooLong:
    """Stands in for a line longer than the limit: ``size`` bytes read of it (all of them when
    ``ended``, else at least that many and the input stopped there)."""

    def __init__(self, size: int, limit: int, ended: bool):
        self.size, self.limit, self.ended = size, limit, ended

    def message(self) -> str:
        """The error of the line (one line)."""
        if self.ended:
            return (f"line is too long: {self.size:,} bytes, more than the limit of {self.limit:,} "
                    "(dokosim.records.lines.MAX_LINE_BYTES); not read")
        return (f"line is too long: more than {self.size:,} bytes without a newline (the limit is "
                f"{self.limit:,}); the rest of the input is not read")


def bounded_lines(stream: BinaryIO, limit: int = MAX_LINE_BYTES,
                  max_skip: int = MAX_SKIP_BYTES) -> Iterator[bytes | LineTooLong]:
    """The lines of a binary stream split at ``b'\\n'`` only (with their ``\\n``), each at most
    ``limit`` bytes before it; a longer line is read in pieces to its end (never held whole)
    and yielded as a ``LineTooLong``. A line still without its end after ``max_skip`` bytes
    ends the input (a ``LineTooLong`` with ``ended=False``)."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if line.endswith(b"\n") or len(line) <= limit:
            yield line
            continue
        size = len(line)
        while True:
            piece = stream.readline(1 << 20)
            size += len(piece)
            if not piece or piece.endswith(b"\n"):
                yield LineTooLong(size - (1 if piece.endswith(b"\n") else 0), limit, True)
                break
            if size > limit + max_skip:
                yield LineTooLong(size, limit, False)
                return
