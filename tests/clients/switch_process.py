"""`p4aqm switch` as a subprocess, started and stopped the way a test harness would."""

import selectors
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

import pytest

READY = "P4Runtime server listening on "


@dataclass
class SwitchProcess:
    process: subprocess.Popen[str]
    address: str
    output: list[str]


def start_switch(args: list[str], timeout: float = 20) -> SwitchProcess:
    """Start `p4aqm switch ARGS` and wait for its ready line, which names the address."""
    process = subprocess.Popen(
        [sys.executable, "-m", "p4aqm.cli", "switch", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    output: list[str] = []
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while time.monotonic() < deadline:
            if not selector.select(timeout=deadline - time.monotonic()):
                break
            line = process.stdout.readline()
            if not line:
                break
            output.append(line)
            if READY in line:
                address = line.split(READY, 1)[1].split(",", 1)[0]
                return SwitchProcess(process, address, output)
    stop_switch(process)
    pytest.fail(f"p4aqm switch did not become ready; output:\n{''.join(output)}")


def stop_switch(process: subprocess.Popen[str]) -> int:
    """SIGTERM, then SIGKILL if it does not stop; returns the exit status."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            return process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    return process.wait()
