"""Runs the PTF suite of ptf-tests/ against `p4aqm switch` on veths in a namespace."""

import subprocess
from pathlib import Path

import pytest
from launch import run_ptf, write_config

from p4aqm.topology.netlab import TestNetwork, list_namespaces, remove_stale_namespaces
from programs import CompiledProgram


@pytest.fixture(scope="module", autouse=True)
def _no_stale_namespaces() -> None:
    remove_stale_namespaces()


def test_ptf_suite_passes(l3_program: CompiledProgram, tmp_path: Path) -> None:
    with TestNetwork(ports=2) as net:
        grpc_addr = net.start_switch()
        config = write_config(tmp_path / "controller.yaml", l3_program, grpc_addr)
        result = run_ptf(net, config, tmp_path / "ptf-logs", install_routes=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "l3_forward.RouteForwards ... ok" in result.stderr, result.stderr
    assert "l3_forward.NoRouteDrops ... ok" in result.stderr, result.stderr


def test_ptf_suite_fails_without_route(l3_program: CompiledProgram, tmp_path: Path) -> None:
    with TestNetwork(ports=2) as net:
        grpc_addr = net.start_switch()
        config = write_config(tmp_path / "controller.yaml", l3_program, grpc_addr)
        result = run_ptf(net, config, tmp_path / "ptf-logs", install_routes=False)
    assert result.returncode != 0, "PTF passed although no route was installed"
    # Only the forwarding test may fail: dropping with no route is still right.
    assert "l3_forward.RouteForwards ... FAIL" in result.stderr, result.stderr
    assert "l3_forward.NoRouteDrops ... ok" in result.stderr, result.stderr


def test_network_is_cleaned_up_after_failure() -> None:
    with pytest.raises(RuntimeError, match="deliberate"), TestNetwork(ports=2) as net:
        switch = net.spawn(["sleep", "600"])
        raise RuntimeError("deliberate failure inside the network")
    assert net.name not in list_namespaces()
    assert switch.poll() is not None, "a process outlived its test network"
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    assert " s1@" not in links and " h1@" not in links
