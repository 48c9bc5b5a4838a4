"""Fixtures shared by every test suite."""

import os

import pytest

from programs import P4SRC, REPO, CompiledProgram, compile_program

# scripts/setup.sh puts p4runtime-shell in its own venv (its protobuf pin clashes with finsy's).
os.environ.setdefault("P4RUNTIME_SH_PYTHON", str(REPO / ".venv-p4rtsh" / "bin" / "python"))


@pytest.fixture(scope="session")
def l3_program(tmp_path_factory: pytest.TempPathFactory) -> CompiledProgram:
    return compile_program(P4SRC / "l3_forward.p4", tmp_path_factory.mktemp("l3_forward"))
