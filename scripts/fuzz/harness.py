"""What every fuzzer here shares: libFuzzer's command line, and a seed corpus if none is given."""

import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

import atheris


def fuzz(test_one_input: Callable[[bytes], None], seeds: Callable[[], Iterable[bytes]]) -> None:
    """Run libFuzzer on sys.argv; with no corpus directory given, start from `seeds()`."""
    args = sys.argv[:]
    if not any(not arg.startswith("-") for arg in args[1:]):
        corpus = Path(tempfile.mkdtemp(prefix="p4aqm-fuzz-seeds-"))
        for index, seed in enumerate(seeds()):
            (corpus / f"seed-{index}").write_bytes(seed)
        args.append(str(corpus))
    atheris.Setup(args, test_one_input)
    atheris.Fuzz()
