"""Runs ptf-tests/cbt.py against `p4aqm switch` running p4src/cbt.p4 on veths."""

from pathlib import Path

import pytest
from launch import run_ptf, write_config

from p4aqm.topology.netlab import TestNetwork
from programs import P4SRC, CompiledProgram, compile_program


@pytest.fixture(scope="module")
def cbt_program(tmp_path_factory: pytest.TempPathFactory) -> CompiledProgram:
    return compile_program(P4SRC / "cbt.p4", tmp_path_factory.mktemp("cbt"))


def test_cbt_ptf_suite(cbt_program: CompiledProgram, tmp_path: Path) -> None:
    with TestNetwork(ports=2) as net:
        path = write_config(tmp_path / "controller.yaml", cbt_program, net.start_switch())
        result = run_ptf(net, path, tmp_path / "ptf-logs", install_routes=True, tests=["cbt"])
    for test in ("UdpBlastHeldToItsThreshold", "MarkedByPortHeldToItsThreshold"):
        assert f"cbt.{test} ... ok" in result.stderr, result.stdout + result.stderr
    assert result.returncode == 0
