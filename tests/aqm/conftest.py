"""The compiled RED program, shared by the AQM tests."""

import pytest

from programs import P4SRC, compile_program


@pytest.fixture(scope="session")
def red_json(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    program = compile_program(P4SRC / "red.p4", tmp_path_factory.mktemp("red"))
    return program.json_path.read_bytes()
