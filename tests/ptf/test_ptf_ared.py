"""Runs ptf-tests/ared.py against `p4aqm switch` running p4src/ared.p4 on veths."""

from pathlib import Path

import pytest
from launch import run_ptf, write_config

from p4aqm.topology.netlab import TestNetwork
from programs import P4SRC, CompiledProgram, compile_program


@pytest.fixture(scope="module")
def ared_program(tmp_path_factory: pytest.TempPathFactory) -> CompiledProgram:
    return compile_program(P4SRC / "ared.p4", tmp_path_factory.mktemp("ared"))


def test_ared_ptf_suite(ared_program: CompiledProgram, tmp_path: Path) -> None:
    with TestNetwork(ports=2) as net:
        path = write_config(tmp_path / "controller.yaml", ared_program, net.start_switch())
        result = run_ptf(net, path, tmp_path / "ptf-logs", install_routes=True, tests=["ared"])
    for test in ("MaxPRisesUnderOverload", "MaxPFallsWhenUnderloaded"):
        assert f"ared.{test} ... ok" in result.stderr, result.stdout + result.stderr
    assert result.returncode == 0
