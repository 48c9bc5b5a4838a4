"""Fixtures of the traffic tests: loopback ports and the generators' command lines."""

import socket
import sys
from collections.abc import Callable

import pytest


@pytest.fixture
def free_port() -> Callable[[int], int]:
    """A port free on 127.0.0.1 for the socket type given (SOCK_STREAM or SOCK_DGRAM)."""

    def pick(kind: int = socket.SOCK_STREAM) -> int:
        with socket.socket(socket.AF_INET, kind) as probe:
            probe.bind(("127.0.0.1", 0))
            return probe.getsockname()[1]

    return pick


@pytest.fixture
def module_command() -> Callable[..., list[str]]:
    """`python -m MODULE ARGS...` with this interpreter, as Mininet hosts will run it."""

    def command(module: str, *args: object) -> list[str]:
        return [sys.executable, "-m", module, *map(str, args)]

    return command
