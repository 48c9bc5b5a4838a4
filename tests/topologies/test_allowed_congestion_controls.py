"""The root namespace's tcp_allowed_congestion_control: a point's sandbox (a network
namespace) can only read it, so `p4aqm run --jobs` adds what its points' hosts ask for
before any sandbox starts, and inside a namespace a missing name is an error that says
where to add it. (A fresh machine lists only "reno bbr": every --jobs point asking for
cubic failed with a bare PermissionError, 2026-11-30.)"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from p4aqm.experiments import jobs
from p4aqm.experiments.spec import load_experiment
from p4aqm.topology import host_tcp

REPO = Path(__file__).resolve().parents[2]
ALLOWED = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control")

if os.geteuid() != 0:
    pytest.skip("network namespaces and the sysctl need root", allow_module_level=True)


@pytest.fixture
def without_cubic() -> object:
    """The root's list without cubic, as on a fresh machine; restored after."""
    before = ALLOWED.read_text().strip()
    ALLOWED.write_text(" ".join(cc for cc in before.split() if cc != "cubic"))
    yield
    ALLOWED.write_text(before)


def test_a_name_missing_inside_a_namespace_is_an_error_naming_the_sysctl(
    without_cubic: object,
) -> None:
    code = (
        "from p4aqm.topology.host_tcp import allow_congestion_controls\n"
        "try:\n    allow_congestion_controls(['cubic'])\n"
        "except ValueError as e:\n    print(e)\n"
    )
    done = subprocess.run(
        ["unshare", "--net", sys.executable, "-c", code], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "congestion control cubic" in done.stdout
    assert "sysctl -w net.ipv4.tcp_allowed_congestion_control=" in done.stdout
    assert "cubic" not in ALLOWED.read_text().split(), "the namespace changed nothing"


def test_a_jobs_run_allows_its_points_congestion_controls_before_any_sandbox(
    without_cubic: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    points = load_experiment(REPO / "experiments" / "examples" / "smoke.yaml")[1]
    assert "cubic" in points[0].topology.congestion_controls()
    seen: list[list[str]] = []

    def start(self: jobs.ConcurrentRun, point: object, slot: int) -> None:
        seen.append(ALLOWED.read_text().split())
        raise KeyboardInterrupt  # no point needs to run: the list was read at the start

    monkeypatch.setattr(jobs.ConcurrentRun, "_start", start)
    run = jobs.ConcurrentRun(REPO / "experiments" / "examples" / "smoke.yaml", Path("/"), None, 2)
    assert run.run(points[:1]) == 130
    assert seen and "cubic" in seen[0]


def test_the_root_namespace_adds_a_missing_name(without_cubic: object) -> None:
    assert "cubic" in host_tcp.allow_congestion_controls(["cubic"]).split()
