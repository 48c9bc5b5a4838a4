"""Fixtures of the controller tests: the compiled RED program and a `p4aqm switch`."""

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from programs import P4SRC, CompiledProgram, compile_program

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "clients"))
from switch_process import SwitchProcess, start_switch, stop_switch  # noqa: E402


@pytest.fixture(scope="session")
def red_program(tmp_path_factory: pytest.TempPathFactory) -> CompiledProgram:
    return compile_program(P4SRC / "red.p4", tmp_path_factory.mktemp("red"))


@pytest.fixture
def switch_process() -> Iterator[SwitchProcess]:
    """`p4aqm switch` in its own process, serving P4Runtime and gNMI on a free port."""
    process = start_switch(["--no-p4", "--grpc-server-addr", "127.0.0.1:0"])
    yield process
    stop_switch(process.process)
