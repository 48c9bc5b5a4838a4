"""p4runtime-shell, unchanged and in its own virtualenv, against `p4aqm switch`."""

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from switch_process import SwitchProcess, start_switch, stop_switch

SCRIPT = Path(__file__).with_name("shell_client.py")


@pytest.fixture
def switch_process() -> Iterator[SwitchProcess]:
    """`p4aqm switch --no-p4` on a free loopback port, always stopped afterwards."""
    switch = start_switch(["--no-p4", "--grpc-server-addr", "127.0.0.1:0"])
    try:
        yield switch
    finally:
        stop_switch(switch.process)


@pytest.fixture(scope="session")
def p4runtime_sh_python() -> Path:
    """p4runtime-shell's interpreter; it needs its own virtualenv (protobuf < 3.21)."""
    value = os.environ.get("P4RUNTIME_SH_PYTHON")
    if not value:
        pytest.fail(
            "P4RUNTIME_SH_PYTHON is not set: point it at the python of a virtualenv with "
            "p4runtime-shell installed (the project's setup script creates one)"
        )
    path = Path(value)
    if not path.exists():
        pytest.fail(
            f"P4RUNTIME_SH_PYTHON={value} does not exist: create it with "
            f"'python3 -m venv {path.parent.parent} && {path.parent}/pip install p4runtime-shell'"
        )
    return path


def test_p4runtime_shell(
    switch_process: SwitchProcess, p4runtime_sh_python: Path, l3_program: Any
) -> None:
    result = subprocess.run(
        [
            str(p4runtime_sh_python),
            str(SCRIPT),
            switch_process.address,
            str(l3_program.p4info_path),
            str(l3_program.json_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    # One route, /24, port 2 in canonical form.
    assert [line for line in lines if line.startswith("READ")] == ["READ 24 02"]
    [duplicate] = [line for line in lines if line.startswith("DUPLICATE")]
    assert "ALREADY_EXISTS" in duplicate
    assert "AFTER_DELETE 0" in lines
