"""After the window a point waits SENDERS_GRACE_S for its senders to end and write their
records: one still running after it is an error naming it, and the others are still
waited for to their end."""

import subprocess
import time
from pathlib import Path

import pytest

from p4aqm.experiments import point as point_module
from p4aqm.experiments.point import PointRun
from p4aqm.experiments.spec import load_experiment

REPO = Path(__file__).resolve().parents[2]


def test_a_sender_past_the_grace_is_an_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(point_module, "SENDERS_GRACE_S", 1.0)
    point = load_experiment(REPO / "experiments" / "examples" / "smoke.yaml")[1][0]
    run = PointRun(point, tmp_path)
    run.senders["bulk0"] = subprocess.Popen(["sleep", "30"])
    run.senders["cbr0"] = subprocess.Popen(["sleep", "0.5"])
    started = time.monotonic()
    try:
        with pytest.raises(RuntimeError, match=r"^bulk0: still running 1 s after the end$"):
            run._wait_senders(timeout_s=point_module.SENDERS_GRACE_S)
        assert time.monotonic() - started < 5
        assert run.senders["cbr0"].returncode == 0, "the other sender was waited for"
    finally:
        run.senders["bulk0"].kill()
        run.senders["bulk0"].wait()
