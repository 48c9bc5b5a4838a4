"""Fixtures shared by every test suite: the compiled programs of p4src/."""

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
P4SRC = REPO / "p4src"

# scripts/setup.sh puts p4runtime-shell in its own venv (its protobuf pin clashes with finsy's).
os.environ.setdefault("P4RUNTIME_SH_PYTHON", str(REPO / ".venv-p4rtsh" / "bin" / "python"))


@dataclass(frozen=True)
class CompiledProgram:
    source: Path
    json_path: Path
    p4info_path: Path


def compile_program(source: Path, out_dir: Path) -> CompiledProgram:
    """Compile with our compiler, exactly as `p4aqm compile` would."""
    from p4compiler.cli import main as compile_main

    json_path = out_dir / f"{source.stem}.json"
    p4info_path = out_dir / f"{source.stem}.p4info.txtpb"
    status = compile_main(
        [str(source), "-o", str(json_path), "--p4runtime-files", str(p4info_path)]
    )
    assert status == 0, f"compiling {source} failed with exit status {status}"
    return CompiledProgram(source, json_path, p4info_path)


@pytest.fixture(scope="session")
def l3_program(tmp_path_factory: pytest.TempPathFactory) -> CompiledProgram:
    return compile_program(P4SRC / "l3_forward.p4", tmp_path_factory.mktemp("l3_forward"))
