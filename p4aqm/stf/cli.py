"""`p4aqm stf TEST.stf`: compile the test's program, run the STF file on our switch."""

import argparse
import sys
import tempfile
from pathlib import Path

from p4aqm.stf.commands import StfSyntaxError, parse_stf
from p4aqm.stf.runner import StfError, StfRunner


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="p4aqm stf",
        description="Run an STF test (p4c's format) on p4aqm's switch with in-memory ports. "
        "By default the program is the .p4 file beside the .stf, compiled with p4aqm compile.",
    )
    parser.add_argument("stf", type=Path, help="the STF file")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--p4", type=Path, help="P4 program to compile (default: STF name .p4)")
    source.add_argument("--json", type=Path, help="run this BMv2 JSON instead of compiling")
    parser.add_argument("-I", dest="include", action="append", default=[], help="include dir")
    parser.add_argument("--seed", type=int, default=0, help="seed for random() and hashes")
    parser.add_argument("--trace", action="store_true", help="print each packet's path")
    return parser


def _compile(p4: Path, includes: list[str], out_dir: Path) -> Path | None:
    from p4aqm.compiler.cli import main as compile_main

    out = out_dir / f"{p4.stem}.json"
    args = [str(p4), "-o", str(out)] + [f"-I{d}" for d in includes]
    return out if compile_main(args) == 0 else None


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        commands = parse_stf(args.stf)
    except OSError as exc:
        print(f"p4aqm stf: error: {args.stf}: {exc.strerror}", file=sys.stderr)
        return 2
    except StfSyntaxError as exc:
        print(exc, file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="p4aqm-stf-") as tmp:
        json_path = args.json
        if json_path is None:
            p4 = args.p4 or args.stf.with_suffix(".p4")
            json_path = _compile(p4, args.include, Path(tmp))
            if json_path is None:
                return 1
        try:
            runner = StfRunner(
                json_path.read_bytes(), str(json_path), seed=args.seed, trace=args.trace
            )
            result = runner.run(commands, str(args.stf))
        except OSError as exc:
            print(f"p4aqm stf: error: {json_path}: {exc.strerror}", file=sys.stderr)
            return 2
        except StfError as exc:
            print(exc, file=sys.stderr)
            return 1
    for failure in result.failures:
        print(failure, file=sys.stderr)
    verdict = "PASS" if result.passed else "FAIL"
    print(f"{verdict} {args.stf}: {result.packets_in} packet(s) in, {result.packets_out} out")
    return 0 if result.passed else 1
