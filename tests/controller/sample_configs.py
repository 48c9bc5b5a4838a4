"""What the sampling tests share: a config with RED on ports 2 and 3 of a switch, and a
`p4aqm controller --sample` run interrupted once it has sampled."""

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from programs import CompiledProgram


def red_config(tmp_path: Path, program: CompiledProgram, address: str) -> Path:
    config = {
        "switch": {"grpc_addr": address},
        "pipeline": {"p4info": str(program.p4info_path), "bmv2_json": str(program.json_path)},
        "ports": {
            2: {"aqm": {"discipline": "red", "min_th": 5, "max_th": 15, "max_p": 0.1}},
            3: {"aqm": {"discipline": "red", "min_th": 30, "max_th": 90, "max_p": 0.1}},
        },
    }
    path = tmp_path / "red.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def interrupted_when(
    config: Path, out: Path, sampling: Callable[[], bool], what: str
) -> subprocess.CompletedProcess:
    """`p4aqm controller --sample` every 3 ms into `out`, interrupted while it samples."""
    p4aqm = str(Path(sys.executable).parent / "p4aqm")
    command = [p4aqm, "controller", str(config), "--sample", str(out), "--period-ms", "3"]
    return command_interrupted_when(command, out, sampling, what)


def command_interrupted_when(
    command: list[str], out: Path, sampling: Callable[[], bool], what: str
) -> subprocess.CompletedProcess:
    """Run `command`, which records into `out`; SIGINT once `sampling()` says the file
    shows samples, so the signal comes while it records, however long it takes to start.
    A command that does not stop within 60 s is asked for its threads' stacks (SIGUSR1,
    which it must register with faulthandler) and fails the test with them."""
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120  # only a hang takes this long
    while not (out.exists() and sampling()):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            _, stderr = process.communicate()
            pytest.fail(f"no {what} from {command[:2]}: {stderr}")
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    try:
        stdout, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGUSR1)
        time.sleep(2)
        process.kill()
        _, stderr = process.communicate()
        pytest.fail(f"{command[:2]} did not stop within 60 s of SIGINT; its threads:\n{stderr}")
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
