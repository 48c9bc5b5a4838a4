"""Source positions and compiler errors, printed the way p4c and gcc print them.

Every stage reports problems by raising `CompileError` with a `SourcePos` that already
refers to the user's original file and line (the preprocessor's line markers are undone
by `preprocess.LineMap` before a position is created), so the CLI only has to format it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class SourcePos:
    file: str
    line: int  # 1-based
    col: int  # 1-based


UNKNOWN_POS = SourcePos("<unknown>", 0, 0)


class CompileError(Exception):
    """A user-facing error: a position and a message, never a traceback."""

    def __init__(self, pos: SourcePos | None, message: str) -> None:
        super().__init__(message)
        self.pos = pos or UNKNOWN_POS
        self.message = message

    def render(self) -> str:
        """`file:line:col: error: message`, then the source line and a caret under `col`."""
        return _render(self.pos, "error", self.message)


def warn(pos: SourcePos, message: str) -> None:
    """A warning on stderr, as p4c prints one; compiling goes on."""
    print(_render(pos, "warning", message), file=sys.stderr)


def _render(pos: SourcePos, severity: str, message: str) -> str:
    if pos == UNKNOWN_POS:
        return f"{severity}: {message}"
    if pos.line <= 0:
        return f"{pos.file}: {severity}: {message}"
    text = f"{pos.file}:{pos.line}:{pos.col}: {severity}: {message}"
    line = _source_line(pos.file, pos.line)
    if line is None:
        return text
    # Tabs are kept so that the caret lines up in a terminal as the line does.
    prefix = "".join(c if c == "\t" else " " for c in line[: max(pos.col - 1, 0)])
    return f"{text}\n{line}\n{prefix}^"


def _source_line(file: str, line: int) -> str | None:
    try:
        lines = Path(file).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return lines[line - 1] if 0 < line <= len(lines) else None
