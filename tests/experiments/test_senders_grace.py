"""After the window a point waits for its senders: a bulk flow still sending (its test
started late) is cut short after BULK_GRACE_S, the other senders get SENDERS_GRACE_S;
the manifest names the flows cut short."""

import subprocess
import sys
import time
from pathlib import Path

import pytest

from p4aqm.experiments import point as point_module
from p4aqm.experiments.manifest import point_manifest
from p4aqm.experiments.point import PointRun
from p4aqm.experiments.spec import load_experiment

REPO = Path(__file__).resolve().parents[2]
# Ends on SIGINT as iperf3 does (which sets its own handler, whatever it inherited),
# after saying it is ready and which signals it inherited blocked.
SLEEP_UNTIL_SIGINT = """import signal, sys, time
blocked = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
signal.signal(signal.SIGINT, signal.default_int_handler)
try:
    print("ready, inherited blocked:", sorted(blocked), flush=True)
    time.sleep(60)
except KeyboardInterrupt:
    pass
"""
SENDING = [sys.executable, "-c", SLEEP_UNTIL_SIGINT]


def sending() -> subprocess.Popen:
    """A sender that has its SIGINT handler in place (so a signal cannot come first)."""
    process = subprocess.Popen(SENDING, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line.startswith("ready"), line
    return process


def test_a_late_bulk_flow_is_cut_short_while_other_senders_finish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(point_module, "BULK_GRACE_S", 0.5)
    point = load_experiment(REPO / "experiments" / "examples" / "smoke.yaml")[1][0]
    run = PointRun(point, tmp_path)
    run.senders["bulk0"] = sending()
    run.processes["bulk0-server"] = sending()
    run.senders["cbr0"] = subprocess.Popen(["sleep", "1.5"])
    started = time.monotonic()
    run._wait_senders(timeout_s=30)
    assert run.bulk_cut_short == ["bulk0"]
    assert run.senders["bulk0"].returncode == 0 and run.processes["bulk0-server"].returncode == 0
    assert run.senders["cbr0"].returncode == 0, "the CBR sender was waited for to its end"
    assert time.monotonic() - started < 10, "the bulk flow was given the senders' grace"
    manifest = point_manifest(
        point, REPO / "experiments" / "examples" / "smoke.yaml", 0, 1, "ok", None,
        {"bulk_cut_short": run.bulk_cut_short},
    )  # fmt: skip
    assert manifest["bulk_cut_short"] == ["bulk0"] and manifest["tuned"] == {}
