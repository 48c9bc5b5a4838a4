"""The tools the tuning daemon drives (clang, bpftool), run with their errors kept, and
where their builds are cached."""

import os
import subprocess
from pathlib import Path

CACHE_ENV = "P4AQM_CACHE"


class TuningError(RuntimeError):
    pass


def run(command: list[str]) -> str:
    """A command's output; a TuningError with the end of its error if it fails."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        raise TuningError(f"{command[0]} is not installed (scripts/setup.sh installs it)") from None
    if done.returncode != 0:
        raise TuningError(f"{' '.join(command)}: {(done.stderr or done.stdout).strip()[-800:]}")
    return done.stdout


def cache_dir() -> Path:
    """$P4AQM_CACHE, or ~/.cache/p4aqm."""
    cache = Path(os.environ.get(CACHE_ENV, Path.home() / ".cache" / "p4aqm"))
    cache.mkdir(parents=True, exist_ok=True)
    return cache
