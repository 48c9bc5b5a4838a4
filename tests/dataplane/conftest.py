"""Shared fixtures for the dataplane tests.

`l3_json` is l3_forward's BMv2 JSON from two sources: the hand-written
fixture that mirrors p4c-bm2-ss output, and our own compiler (p4compiler),
so every packet test checks both."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def compiled_l3(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    if importlib.util.find_spec("p4aqm.compiler.cli") is None:
        pytest.skip("p4aqm.compiler.cli is not available")
    out = tmp_path_factory.mktemp("p4c") / "l3_forward.json"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "p4aqm.compiler.cli",
            str(REPO / "p4src/l3_forward.p4"),
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert r.returncode == 0, f"p4aqm.compiler failed on l3_forward.p4:\n{r.stderr}"
    return out.read_bytes()


@pytest.fixture(params=["fixture", "p4compiler"])
def l3_json(request: pytest.FixtureRequest) -> bytes:
    if request.param == "p4compiler":
        return request.getfixturevalue("compiled_l3")
    return (FIXTURES / "l3_forward.json").read_bytes()


@pytest.fixture
def l3_dict() -> dict:
    return json.loads((FIXTURES / "l3_forward.json").read_text())


# Programs written for these tests, compiled once by p4compiler and kept as
# JSON so the tests do not depend on the compiler's state. Regenerate with
#   python -m p4aqm.compiler.cli tests/dataplane/fixtures/NAME.p4 \
#       -o tests/dataplane/fixtures/NAME.json


@pytest.fixture(scope="session")
def queue_probe_json() -> bytes:
    return (FIXTURES / "queue_probe.json").read_bytes()


@pytest.fixture(scope="session")
def externs_json() -> bytes:
    return (FIXTURES / "externs.json").read_bytes()


@pytest.fixture(scope="session")
def passes_json() -> bytes:
    return (FIXTURES / "passes.json").read_bytes()
