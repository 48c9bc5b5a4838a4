"""Types shared by the compiler tests (importable because pytest puts this folder on
sys.path, which it does not do for conftest.py's names)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Result:
    status: int
    out: str
    err: str
    json_path: Path
    p4info_path: Path


# compile_text(program_text, *extra_flags) -> Result
CompileText = Callable[..., Result]
