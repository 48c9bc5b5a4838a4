"""Runs ptf-tests/pie.py against `p4aqm switch` running p4src/pie.p4 on veths."""

from pathlib import Path

import pytest
from launch import run_ptf, write_config

from p4aqm.topology.netlab import TestNetwork
from programs import P4SRC, CompiledProgram, compile_program


@pytest.fixture(scope="module")
def pie_program(tmp_path_factory: pytest.TempPathFactory) -> CompiledProgram:
    return compile_program(P4SRC / "pie.p4", tmp_path_factory.mktemp("pie"))


def test_pie_ptf_suite(pie_program: CompiledProgram, tmp_path: Path) -> None:
    with TestNetwork(ports=2) as net:
        path = write_config(tmp_path / "controller.yaml", pie_program, net.start_switch())
        result = run_ptf(net, path, tmp_path / "ptf-logs", install_routes=True, tests=["pie"])
    for test in (
        "NoDropsWhenTheQueueIsEmpty",
        "DropsUnderPersistentDelay",
        "EcnMarksWhileTheProbabilityIsLow",
    ):
        assert f"pie.{test} ... ok" in result.stderr, result.stdout + result.stderr
    assert result.returncode == 0
