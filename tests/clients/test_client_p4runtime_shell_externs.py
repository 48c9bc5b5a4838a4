"""p4runtime-shell, unchanged and in its own virtualenv, against `p4aqm switch --cpu-port
255` running runtime_externs: table, counter, register, packet-out and packet-in."""

import ast
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from switch_process import SwitchProcess, start_switch, stop_switch

from programs import REPO, CompiledProgram, compile_program

SCRIPT = Path(__file__).with_name("shell_externs_client.py")
SOURCE = REPO / "tests" / "switch" / "programs" / "runtime_externs.p4"


@pytest.fixture(scope="module")
def externs_compiled(tmp_path_factory: pytest.TempPathFactory) -> CompiledProgram:
    return compile_program(SOURCE, tmp_path_factory.mktemp("runtime_externs"))


@pytest.fixture
def cpu_switch() -> Iterator[SwitchProcess]:
    switch = start_switch(["--no-p4", "--grpc-server-addr", "127.0.0.1:0", "--cpu-port", "255"])
    try:
        yield switch
    finally:
        stop_switch(switch.process)


def test_p4runtime_shell_externs_and_packets(
    cpu_switch: SwitchProcess, p4runtime_sh_python: Path, externs_compiled: Any
) -> None:
    result = subprocess.run(
        [
            str(p4runtime_sh_python),
            str(SCRIPT),
            cpu_switch.address,
            str(externs_compiled.p4info_path),
            str(externs_compiled.json_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "TABLE 02" in lines
    assert "COUNTER 1000 10" in lines
    assert "REGISTER 1234" in lines
    [packet_in] = [line for line in lines if line.startswith("PACKET_IN")]
    _, same_payload, metadata = packet_in.split(" ", 2)
    assert same_payload == "True"
    # ingress_port 255 (the CPU port: a loopback), pad 0.
    assert ast.literal_eval(metadata) == {1: "ff", 2: "00"}
