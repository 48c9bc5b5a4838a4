"""Runs ptf-tests/droptail.py against `p4aqm switch` running p4src/droptail.p4 on veths."""

from pathlib import Path

from launch import run_ptf, write_config

from p4aqm.topology.netlab import TestNetwork
from programs import P4SRC, compile_program


def test_droptail_ptf(tmp_path: Path) -> None:
    program = compile_program(P4SRC / "droptail.p4", tmp_path)
    with TestNetwork(ports=2) as net:
        config = write_config(tmp_path / "controller.yaml", program, net.start_switch())
        logs = tmp_path / "ptf-logs"
        result = run_ptf(net, config, logs, install_routes=True, tests=["droptail"])
    assert "droptail.BurstKeepsTheLimit ... ok" in result.stderr, result.stdout + result.stderr
    assert result.returncode == 0
