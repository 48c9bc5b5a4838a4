"""The programs of p4src/, compiled once per session for the AQM tests."""

from collections.abc import Callable

import pytest

from programs import P4SRC, CompiledProgram, compile_program


@pytest.fixture(scope="session")
def p4src_program(
    tmp_path_factory: pytest.TempPathFactory,
) -> Callable[[str], CompiledProgram]:
    """p4src_program("red") compiles p4src/red.p4 on first use."""
    compiled: dict[str, CompiledProgram] = {}

    def get(name: str) -> CompiledProgram:
        if name not in compiled:
            out = tmp_path_factory.mktemp(name)
            compiled[name] = compile_program(P4SRC / f"{name}.p4", out)
        return compiled[name]

    return get


@pytest.fixture(scope="session")
def red_program(p4src_program: Callable[[str], CompiledProgram]) -> CompiledProgram:
    return p4src_program("red")
