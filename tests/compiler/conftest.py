"""Fixtures of the compiler tests: run the CLI on a program text."""

from __future__ import annotations

from pathlib import Path

import pytest
from compiler_helpers import CompileText, Result

from p4aqm.compiler.cli import main


@pytest.fixture
def compile_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> CompileText:
    """Write `text` to prog.p4 in a temporary directory and compile it with the CLI."""

    def run(text: str, *extra: str) -> Result:
        src = tmp_path / "prog.p4"
        src.write_text(text)
        out_json = tmp_path / "prog.json"
        out_info = tmp_path / "prog.p4info.txtpb"
        status = main([str(src), "-o", str(out_json), "--p4runtime-files", str(out_info), *extra])
        captured = capsys.readouterr()
        return Result(status, captured.out, captured.err, out_json, out_info)

    return run
