"""Coverage-guided fuzzing of `p4aqm compile` with atheris (libFuzzer) on mutated programs.

Seeds: every .p4 in p4src/ and tests/conformance/. Each input is compiled in-process
exactly as the CLI does; the compiler may reject it (exit 1 or 2 with a diagnostic) but
must never raise. Any exception is a crash, and libFuzzer stops with the input saved.

    .venv/bin/python scripts/fuzz/fuzz_compiler.py -max_total_time=600 [corpus dir]
"""

import tempfile
from pathlib import Path

import atheris
from harness import fuzz

with atheris.instrument_imports():
    from p4aqm.compiler.cli import main as compile_main

REPO = Path(__file__).resolve().parents[2]
WORK = Path(tempfile.mkdtemp(prefix="p4aqm-fuzz-compiler-"))
SOURCE = WORK / "input.p4"


def test_one_input(data: bytes) -> None:
    SOURCE.write_bytes(data)
    args = [str(SOURCE), "-o", str(WORK / "out.json"), "--p4runtime-files", str(WORK / "o.txt")]
    status = compile_main(args)
    if status not in (0, 1):
        raise RuntimeError(f"unexpected exit status {status}")


def seeds() -> list[bytes]:
    sources = [*REPO.glob("p4src/*.p4"), *REPO.glob("tests/conformance/*.p4")]
    return [source.read_bytes() for source in sources]


if __name__ == "__main__":
    fuzz(test_one_input, seeds)
