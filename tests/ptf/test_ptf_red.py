"""Runs ptf-tests/red.py against `p4aqm switch` running p4src/red.p4 on veths."""

from pathlib import Path

from launch import run_ptf, write_config

from p4aqm.topology.netlab import TestNetwork
from programs import P4SRC, compile_program


def test_red_ptf_suite(tmp_path: Path) -> None:
    program = compile_program(P4SRC / "red.p4", tmp_path)
    with TestNetwork(ports=2) as net:
        config = write_config(tmp_path / "controller.yaml", program, net.start_switch())
        result = run_ptf(net, config, tmp_path / "ptf-logs", install_routes=True, tests=["red"])
    for test in ("NoDropsBelowMinTh", "DropsAboveMinTh", "EcnMarksEctDropsNotEct"):
        assert f"red.{test} ... ok" in result.stderr, result.stdout + result.stderr
    assert result.returncode == 0
