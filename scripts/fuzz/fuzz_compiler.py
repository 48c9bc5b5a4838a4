"""Coverage-guided fuzzing of `p4aqm compile` with atheris (libFuzzer) on mutated programs.

Seeds: every .p4 in p4src/ and tests/conformance/. Each input is compiled in-process
exactly as the CLI does; the compiler may reject it (exit 1 or 2 with a diagnostic) but
must never raise. Any exception is a crash, and libFuzzer stops with the input saved.

    .venv/bin/python scripts/fuzz/fuzz_compiler.py -max_total_time=600 [corpus dir]
"""

import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from p4compiler.cli import main as compile_main

REPO = Path(__file__).resolve().parents[2]
WORK = Path(tempfile.mkdtemp(prefix="p4aqm-fuzz-compiler-"))
SOURCE = WORK / "input.p4"


def test_one_input(data: bytes) -> None:
    SOURCE.write_bytes(data)
    args = [str(SOURCE), "-o", str(WORK / "out.json"), "--p4runtime-files", str(WORK / "o.txt")]
    status = compile_main(args)
    if status not in (0, 1):
        raise RuntimeError(f"unexpected exit status {status}")


def seed_corpus() -> Path:
    corpus = WORK / "seeds"
    corpus.mkdir()
    for source in [*REPO.glob("p4src/*.p4"), *REPO.glob("tests/conformance/*.p4")]:
        (corpus / source.name).write_bytes(source.read_bytes())
    return corpus


def main() -> None:
    args = sys.argv[:]
    if not any(not a.startswith("-") for a in args[1:]):
        args.append(str(seed_corpus()))
    atheris.Setup(args, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
