"""The C preprocessor pass, run as p4c runs it, and the map back to original lines.

P4_16 programs rely on `#include <core.p4>`, `#define` and `#ifdef` exactly as C does, so
we run the system `cpp` rather than reimplementing it.  `-undef -nostdinc` keeps the
host's predefined macros and system headers out; `-x assembler-with-cpp` stops cpp from
treating `'` as a character literal; `-C` keeps comments so that columns on a line stay
as the user wrote them.  cpp's `# N "file"` line markers are then folded into a
`LineMap`, which every later stage uses to report positions in the user's own files.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from p4aqm.compiler.diagnostics import CompileError, SourcePos

P4INCLUDE_DIR = Path(__file__).parent / "p4include"

_MARKER = re.compile(r'^#\s*(\d+)\s+"((?:[^"\\]|\\.)*)"')
# cpp omits the column for some errors (unterminated #if): they point at the line start.
_CPP_DIAG = re.compile(r"^(.*?):(\d+)(?::(\d+))?: (?:fatal )?error: (.*)$")


@dataclass
class LineMap:
    """For each line of preprocessed text (0-based index), the original (file, line)."""

    origins: list[tuple[str, int]] = field(default_factory=list)

    def pos(self, line: int, col: int) -> SourcePos:
        """The original position of 1-based `line`, `col` of the preprocessed text."""
        if 0 < line <= len(self.origins):
            file, orig = self.origins[line - 1]
            return SourcePos(file, orig, col)
        return SourcePos(self.origins[-1][0] if self.origins else "<input>", line, col)


@dataclass
class Preprocessed:
    text: str
    lines: LineMap


def preprocess(
    source: Path,
    include_dirs: list[Path] | None = None,
    defines: list[str] | None = None,
    undefines: list[str] | None = None,
) -> Preprocessed:
    """Run cpp on `source`; markers are removed from the text and kept in the line map."""
    cpp = shutil.which("cpp")
    if cpp is None:
        raise CompileError(None, "the C preprocessor 'cpp' was not found on PATH")
    if not source.is_file():
        raise CompileError(None, f"{source}: no such file")
    cmd = [cpp, "-C", "-undef", "-nostdinc", "-x", "assembler-with-cpp"]
    # User directories first so that a program may shadow the standard headers, as in p4c.
    for d in include_dirs or []:
        cmd += ["-I", str(d)]
    cmd += ["-I", str(P4INCLUDE_DIR)]
    cmd += [f"-D{d}" for d in defines or []]
    cmd += [f"-U{u}" for u in undefines or []]
    cmd.append(str(source))
    # Undecodable bytes become U+FFFD, which the lexer then reports with a position.
    proc = subprocess.run(cmd, capture_output=True, encoding="utf-8", errors="replace", check=False)
    if proc.returncode != 0:
        raise _cpp_error(proc.stderr, source)
    return _strip_markers(proc.stdout, str(source))


def _cpp_error(stderr: str, source: Path) -> CompileError:
    for line in stderr.splitlines():
        m = _CPP_DIAG.match(line)
        if m:
            return CompileError(SourcePos(m[1], int(m[2]), int(m[3] or 1)), m[4])
    return CompileError(None, f"{source}: preprocessing failed: {stderr.strip()}")


def _strip_markers(text: str, default_file: str) -> Preprocessed:
    out: list[str] = []
    origins: list[tuple[str, int]] = []
    file, line = default_file, 1
    for raw in text.split("\n"):
        m = _MARKER.match(raw)
        if m:
            file, line = m[2].encode().decode("unicode_escape"), int(m[1])
            # Keep an empty line so that preprocessed line numbers stay one per input line.
            out.append("")
            origins.append((file, line))
            continue
        out.append(raw)
        origins.append((file, line))
        line += 1
    return Preprocessed("\n".join(out), LineMap(origins))
