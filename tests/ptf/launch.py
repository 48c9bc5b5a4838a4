"""Launching the PTF suites of ptf-tests/ against `p4aqm switch` on veths: the controller
config each suite starts from and the `ptf` command line (importable by the PTF tests)."""

import subprocess
import sys
from pathlib import Path

import yaml

from p4aqm.topology.netlab import TestNetwork
from programs import REPO, CompiledProgram

PTF_DIR = REPO / "ptf-tests"
EXAMPLE_CONFIG = REPO / "examples" / "controller" / "l3_forward.yaml"


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
