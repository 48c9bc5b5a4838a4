"""Runs the PTF suite of ptf-tests/ against `p4aqm switch` on veths in a namespace."""

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from p4aqm.netlab import TestNetwork, list_namespaces, remove_stale_namespaces
from programs import REPO, CompiledProgram

PTF_DIR = REPO / "ptf-tests"
EXAMPLE_CONFIG = REPO / "controller" / "examples" / "l3_forward.yaml"


@pytest.fixture(scope="module", autouse=True)
def _no_stale_namespaces() -> None:
    remove_stale_namespaces()


def write_config(path: Path, program: CompiledProgram, grpc_addr: str) -> Path:
    """The example config, pointed at this test's switch and compiled program."""
    config = yaml.safe_load(EXAMPLE_CONFIG.read_text())
    config["switch"]["grpc_addr"] = grpc_addr
    config["pipeline"] = {"p4info": str(program.p4info_path), "bmv2_json": str(program.json_path)}
    path.write_text(yaml.safe_dump(config))
    return path


def run_ptf(
    net: TestNetwork,
    config: Path,
    log_dir: Path,
    install_routes: bool,
    tests: tuple[str, ...] | list[str] = ("l3_forward",),
) -> subprocess.CompletedProcess[str]:
    ptf = str(Path(sys.executable).parent / "ptf")
    args = [ptf, "--test-dir", str(PTF_DIR), "--log-dir", str(log_dir), "--pypath", str(REPO)]
    for port in net.ports:
        args += ["-i", f"{port}@h{port}"]
    args += ["--test-params", f"config='{config}';install_routes={install_routes}", *tests]
    return net.run(args, timeout_s=120)


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
