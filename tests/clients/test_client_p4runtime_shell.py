"""p4runtime-shell, unchanged and in its own virtualenv, against `p4aqm switch`."""

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
