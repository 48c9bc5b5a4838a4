"""Runs ptf-tests/codel.py against `p4aqm switch` running p4src/codel.p4 on veths."""

from pathlib import Path

import pytest
from launch import run_ptf, write_config

from p4aqm.topology.netlab import TestNetwork
from programs import P4SRC, CompiledProgram, compile_program


@pytest.fixture(scope="module")
def codel_program(tmp_path_factory: pytest.TempPathFactory) -> CompiledProgram:
    return compile_program(P4SRC / "codel.p4", tmp_path_factory.mktemp("codel"))


def test_codel_ptf_suite(codel_program: CompiledProgram, tmp_path: Path) -> None:
    with TestNetwork(ports=2) as net:
        path = write_config(tmp_path / "controller.yaml", codel_program, net.start_switch())
        result = run_ptf(net, path, tmp_path / "ptf-logs", install_routes=True, tests=["codel"])
    for test in ("NoDropsBelowTarget", "DropsAStandingQueue", "EcnMarksEctDropsNotEct"):
        assert f"codel.{test} ... ok" in result.stderr, result.stdout + result.stderr
    assert result.returncode == 0
