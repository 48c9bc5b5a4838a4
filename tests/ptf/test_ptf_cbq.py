"""Runs ptf-tests/cbq.py against `p4aqm switch` running p4src/cbq.p4 on veths, with the
three priority queues per port its classes need."""

from pathlib import Path

import pytest
from launch import run_ptf, write_config

from p4aqm.topology.netlab import TestNetwork
from programs import P4SRC, CompiledProgram, compile_program


@pytest.fixture(scope="module")
def cbq_program(tmp_path_factory: pytest.TempPathFactory) -> CompiledProgram:
    return compile_program(P4SRC / "cbq.p4", tmp_path_factory.mktemp("cbq"))


def test_cbq_ptf_suite(cbq_program: CompiledProgram, tmp_path: Path) -> None:
    with TestNetwork(ports=2) as net:
        grpc_addr = net.start_switch(extra_args=["--priority-queues", "3"])
        path = write_config(tmp_path / "controller.yaml", cbq_program, grpc_addr)
        result = run_ptf(net, path, tmp_path / "ptf-logs", install_routes=True, tests=["cbq"])
    for test in ("ClassesUnderTheirRatesKeepTheirPackets", "IdleClassesLendTheLink"):
        assert f"cbq.{test} ... ok" in result.stderr, result.stdout + result.stderr
    assert result.returncode == 0
