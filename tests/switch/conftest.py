"""Fixtures of the switch tests: the programs they compile."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from switch_helpers import MEMORY_PORTS, Client, Program, primary_with

from p4aqm.switch.runtime.server import P4RuntimeService, ServerThread
from programs import CompiledProgram, compile_program

PROGRAMS = Path(__file__).resolve().parent / "programs"


@pytest.fixture(scope="session")
def externs_program(tmp_path_factory: pytest.TempPathFactory) -> CompiledProgram:
    """runtime_externs.p4: a register, counters, meters, a digest and controller headers."""
    return compile_program(
        PROGRAMS / "runtime_externs.p4", tmp_path_factory.mktemp("runtime_externs")
    )


CPU_PORT = 255  # runtime_externs.p4's CPU_PORT


@pytest.fixture(scope="session")
def externs(externs_program: CompiledProgram) -> Program:
    return Program.load(externs_program.p4info_path, externs_program.json_path)


def _running_dataplane(cpu_port: int | None) -> Iterator[Any]:
    from p4aqm.switch._dataplane import Dataplane

    dp = Dataplane(cpu_port=cpu_port, seed=1)
    for port in MEMORY_PORTS:
        dp.add_memory_port(port)
    dp.start()
    yield dp
    dp.stop()


def _server(dataplane: Any) -> Iterator[int]:
    server = ServerThread(P4RuntimeService(dataplane, device_id=0))
    yield server.start()
    server.stop()


@pytest.fixture
def dataplane() -> Iterator[Any]:
    """A dataplane with memory ports and no CPU port."""
    yield from _running_dataplane(None)


@pytest.fixture
def server_port(dataplane: Any) -> Iterator[int]:
    """The port of a server in front of `dataplane`."""
    yield from _server(dataplane)


@pytest.fixture
def cpu_dataplane() -> Iterator[Any]:
    """A dataplane with memory ports and CPU port 255."""
    yield from _running_dataplane(CPU_PORT)


@pytest.fixture
def externs_port(cpu_dataplane: Any) -> Iterator[int]:
    """The port of a server in front of `cpu_dataplane`."""
    yield from _server(cpu_dataplane)


@pytest.fixture
def externs_client(externs_port: int, externs: Program) -> Iterator[Client]:
    """The primary client (election id 10), after pushing runtime_externs."""
    yield from primary_with(externs_port, externs)
