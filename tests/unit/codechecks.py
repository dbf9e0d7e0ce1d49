"""The honesty check every code chunker's output must pass."""

from __future__ import annotations

import codecs
from collections.abc import Sequence

from bot.corpus.chunk import Chunk
from bot.corpus.code.source import CEILING_BYTES


def assert_honest(data: bytes, chunks: Sequence[Chunk]) -> None:
    """Every chunk's spans lie inside the file and its text is exactly those lines and bytes.

    A line is what a line feed ends. Its text leaves out its terminator (LF, or CRLF) and, on
    line 1, a byte-order mark; a chunk's text joins its lines' texts with LF.
    """
    lines = data.split(b"\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    contents = [
        line[:-1] if at < len(lines) - 1 and line.endswith(b"\r") else line
        for at, line in enumerate(lines)
    ]
    if data.startswith(codecs.BOM_UTF8):
        starts[0] = len(codecs.BOM_UTF8)
        contents[0] = contents[0][len(codecs.BOM_UTF8) :]
    for chunk in chunks:
        assert starts[0] <= chunk.start_byte <= chunk.end_byte <= len(data), chunk
        assert 1 <= chunk.start_line <= chunk.end_line <= len(lines), chunk
        span = data[chunk.start_byte : chunk.end_byte].decode("utf-8", "replace")
        assert chunk.text == span.replace("\r\n", "\n")
        assert chunk.end_byte - chunk.start_byte <= CEILING_BYTES
        # The byte span sits on the lines the chunk names.
        assert starts[chunk.start_line - 1] <= chunk.start_byte
        assert chunk.start_line == len(lines) or chunk.start_byte < starts[chunk.start_line]
        last = chunk.end_line - 1
        line_end = starts[last] + len(contents[last])
        assert starts[last] <= max(chunk.start_byte, chunk.end_byte - 1)
        assert chunk.end_byte <= line_end, "a chunk ends before its last line's terminator"
        if chunk.start_byte == starts[chunk.start_line - 1] and chunk.end_byte == line_end:
            whole = b"\n".join(contents[chunk.start_line - 1 : chunk.end_line])
            assert chunk.text == whole.decode("utf-8", "replace")
        assert chunk.symbol and chunk.heading and chunk.heading_path
        assert chunk.anchor == ""


def lines_of(data: bytes | str, first: int, last: int) -> str:
    """Lines ``first..last`` (1-based, inclusive) of a file, as a chunk's text holds them."""
    text = data.decode() if isinstance(data, bytes) else data
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")
    return "\n".join(lines[first - 1 : last])


def spans(chunks: Sequence[Chunk]) -> list[tuple[str, int, int]]:
    """Each chunk's symbol and line range: what a test of where the cuts fall compares."""
    return [(c.symbol, c.start_line, c.end_line) for c in chunks]
