"""Writing the report's files whole or not at all.

Each file is written under a temporary name in its own directory and renamed over the
final name, so a crash (or a second report run) leaves the old file or the new one, never
half of one; the rename cannot cross file systems.
"""

import os
from collections.abc import Callable
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure


def write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """Call write(temporary path), then rename the result to path."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text(path: Path, text: str) -> None:
    write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def write_csv(path: Path, frame: pd.DataFrame) -> None:
    write_atomically(path, lambda tmp: frame.to_csv(tmp, index=False))


def save_figure(figure: Figure, path: Path) -> None:
    """The figure in the format of path's suffix (png, svg)."""
    fmt = path.suffix.lstrip(".")
    # No creation date in the SVG, so that the same results give the same files.
    metadata = {"Date": None} if fmt == "svg" else None
    write_atomically(path, lambda tmp: figure.savefig(tmp, format=fmt, metadata=metadata))
