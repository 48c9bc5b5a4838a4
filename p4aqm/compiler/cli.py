"""`p4aqm compile`: the compiler's command line, with the flags of p4c-bm2-ss.

    p4aqm compile PROG.p4 -o PROG.json --p4runtime-files PROG.p4info.txtpb

Errors go to stderr as `file:line:col: error: message` with the source line and a
caret, and the exit status is 1; bad flags exit with status 2 as argparse does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from p4aqm.compiler.backend import bmv2_json
from p4aqm.compiler.copy_in_out import copy_in_out
from p4aqm.compiler.diagnostics import CompileError
from p4aqm.compiler.generic_types import specialize_generic_types
from p4aqm.compiler.hoist import hoist_calls
from p4aqm.compiler.lexer import tokenize
from p4aqm.compiler.loops import lower_loops
from p4aqm.compiler.parser import parse
from p4aqm.compiler.parser_functions import inline_parser_functions
from p4aqm.compiler.parser_ifs import split_parser_ifs
from p4aqm.compiler.parser_unroll import unroll_parsers
from p4aqm.compiler.preprocess import preprocess
from p4aqm.compiler.specialize import specialize_control_arguments
from p4aqm.compiler.subparsers import inline_subparsers
from p4aqm.compiler.typecheck import check

VERSION = "p4aqm-compile 0.1.0 (P4_16 1.2.x, v1model, bmv2 JSON 2.23)"


class _ArgumentParser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so `main` can return a status."""

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        if message:
            sys.stderr.write(message)
        raise _Exit(status)


class _Exit(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _argument_parser() -> argparse.ArgumentParser:
    ap = _ArgumentParser(
        prog="p4aqm compile", description="Compile a P4_16 v1model program to BMv2 JSON and P4Info."
    )
    ap.add_argument("source", help="the P4_16 program")
    ap.add_argument("-o", dest="output", help="BMv2 JSON output file (default: SOURCE with .json)")
    ap.add_argument(
        "--p4runtime-files",
        default="",
        help="comma-separated P4Info outputs; format from the extension",
    )
    ap.add_argument(
        "--p4runtime-format",
        choices=("text", "binary", "json"),
        help="P4Info format for all outputs",
    )
    ap.add_argument(
        "-I",
        dest="include",
        action="append",
        default=[],
        metavar="DIR",
        help="add an include directory",
    )
    ap.add_argument(
        "-D",
        dest="define",
        action="append",
        default=[],
        metavar="NAME[=VAL]",
        help="define a macro",
    )
    ap.add_argument(
        "-U", dest="undef", action="append", default=[], metavar="NAME", help="undefine a macro"
    )
    ap.add_argument(
        "--std", choices=("p4-16",), default="p4-16", help="language version (only p4-16)"
    )
    ap.add_argument(
        "--arch", choices=("v1model",), default="v1model", help="architecture (only v1model)"
    )
    ap.add_argument("--target", choices=("bmv2",), default="bmv2", help="target (only bmv2)")
    ap.add_argument("--version", action="version", version=VERSION)
    return ap


def compile_program(args: argparse.Namespace) -> None:
    source = Path(args.source)
    pre = preprocess(source, [Path(d) for d in args.include], args.define, args.undef)
    parsed = parse(tokenize(pre.text, pre.lines))
    generic = specialize_generic_types(parsed)
    program = specialize_control_arguments(inline_subparsers(lower_loops(generic)))
    program = copy_in_out(hoist_calls(program))
    checked = unroll_parsers(check(split_parser_ifs(inline_parser_functions(program))))
    program = bmv2_json.build(checked, args.source)
    output = Path(args.output) if args.output else Path(source.with_suffix(".json").name)
    _write(output, json.dumps(program.json, indent=2).encode() + b"\n")
    files = [f for f in args.p4runtime_files.split(",") if f]
    if files:
        # Imported here: protobuf and finsy's stubs are most of the start-up time.
        from p4aqm.compiler.backend import p4info

        info = p4info.build_p4info(program)
        for f in files:
            path = Path(f)
            _write(path, p4info.serialize(info, p4info.p4info_format(path, args.p4runtime_format)))


def _write(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as e:
        raise CompileError(None, f"cannot write {path}: {e.strerror}") from None


def main(argv: list[str]) -> int:
    try:
        args = _argument_parser().parse_args(argv)
    except _Exit as e:
        return e.status
    try:
        compile_program(args)
    except CompileError as e:
        print(e.render(), file=sys.stderr)
        return 1
    except RecursionError:
        print(f"{args.source}: error: the program is nested too deeply", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
