"""Fixtures of the client tests."""

import os
from pathlib import Path

import pytest


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
