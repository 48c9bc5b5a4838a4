"""Compile time of every program in p4src/ with `p4aqm compile`, in a fresh process each.

Method: wall time of `p4aqm compile PROG -o ... --p4runtime-files ...` as a subprocess
(interpreter start-up included, as a user sees it), best of REPEATS. The baseline in the
same run is the interpreter start-up alone (`p4aqm --help`).
"""

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from build import REPO

REPEATS = 5


def _best(args: list[str]) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return min(times)


def run() -> list[tuple[str, float]]:
    p4aqm = str(Path(sys.executable).parent / "p4aqm")
    results = [("(baseline) p4aqm --help", _best([p4aqm, "--help"]))]
    with tempfile.TemporaryDirectory() as tmp:
        for source in sorted((REPO / "p4src").glob("*.p4")):
            out = Path(tmp) / source.stem
            args = [p4aqm, "compile", str(source), "-o", f"{out}.json"]
            results.append((source.name, _best([*args, "--p4runtime-files", f"{out}.txtpb"])))
    return results
