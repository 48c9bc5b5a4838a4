"""`p4aqm run` killed during the second of three points: the rerun runs only the points
that are missing, and the first point's files are left byte for byte."""

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from programs import CompiledProgram

if os.geteuid() != 0:
    pytest.skip("the dumbbell needs root (namespaces, veths)", allow_module_level=True)

from p4aqm.topology.registry import REGISTRY_DIR  # noqa: E402

P4AQM = str(Path(sys.executable).parent / "p4aqm")

EXPERIMENT = """name: resume
topology:
  build_dir: {build}
  bottleneck_rate_bps: 10000000
traffic:
  cbr: [{{client: c1, server: s1, rate_bps: 500000}}]
duration_s: 6
warmup_s: 1
sweep:
  traffic.cbr.0.rate_bps: [500000, 1000000, 2000000]
"""


def digests(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_rerun_after_a_kill_runs_only_the_missing_points(
    l3_program: CompiledProgram, tmp_path: Path
) -> None:
    experiment = tmp_path / "resume.yaml"
    experiment.write_text(EXPERIMENT.format(build=l3_program.json_path.parent))
    results = tmp_path / "results"
    command = [P4AQM, "run", str(experiment), "-o", str(results)]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        points = results / "points"
        deadline = time.monotonic() + 120
        while not (results / ".inflight").exists() or len(list(points.glob("*"))) < 1:
            assert run.poll() is None, run.communicate()[0]
            assert time.monotonic() < deadline, "the first point did not finish"
            time.sleep(0.2)
        first = next(points.iterdir())
        time.sleep(4)  # well into the second point
        assert len(list(points.iterdir())) == 1
        status = subprocess.run([P4AQM, "status", str(results)], capture_output=True, text=True)
        assert "1 done, 1 running, 1 not run" in status.stdout, status.stdout
        run.send_signal(signal.SIGKILL)
        run.wait()
        status = subprocess.run([P4AQM, "status", str(results)], capture_output=True, text=True)
        assert "1 done, 1 interrupted, 1 not run" in status.stdout, status.stdout
    finally:
        run.kill()  # whatever failed above, the run must not outlive the test
        run.wait()
        subprocess.run([P4AQM, "clean"], capture_output=True, check=True)
    before = digests(first)
    assert json.loads((first / "manifest.json").read_text())["status"] == "ok"

    rerun = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert "1 of 3 points already complete: skipped" in rerun.stdout
    assert digests(first) == before
    names = sorted(p.name for p in points.iterdir())
    assert len(names) == 3 and not (results / ".inflight").exists()
    for name in names:
        manifest = json.loads((points / name / "manifest.json").read_text())
        assert manifest["status"] == "ok", manifest["error"]
    again = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert "3 of 3 points already complete: skipped" in again.stdout


def test_a_failed_point_is_recorded_and_the_sweep_goes_on(
    l3_program: CompiledProgram, tmp_path: Path
) -> None:
    experiment = tmp_path / "fails.yaml"
    text = EXPERIMENT.format(build=l3_program.json_path.parent)
    text = text.replace(
        "traffic.cbr.0.rate_bps: [500000, 1000000, 2000000]",
        "topology.program: [missing, l3_forward]",
    )
    experiment.write_text(text.replace("duration_s: 6", "duration_s: 2"))
    results = tmp_path / "results"
    run = subprocess.run(
        [P4AQM, "run", str(experiment), "-o", str(results)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 points ok, 1 failed" in run.stdout
    failed = json.loads((results / "points" / "p01_program-missing" / "manifest.json").read_text())
    assert failed["status"] == "failed" and "missing.json: no such file" in failed["error"]
    ok = json.loads((results / "points" / "p02_program-l3_forward" / "manifest.json").read_text())
    assert ok["status"] == "ok"


def test_sigterm_tears_the_point_down_and_says_how_to_continue(
    l3_program: CompiledProgram, tmp_path: Path
) -> None:
    experiment = tmp_path / "term.yaml"
    experiment.write_text(EXPERIMENT.format(build=l3_program.json_path.parent))
    results = tmp_path / "results"
    run = subprocess.Popen(
        [P4AQM, "run", str(experiment), "-o", str(results)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not list((results / ".inflight").glob("*/topology/manifest.json")):
        assert run.poll() is None and time.monotonic() < deadline, run.communicate()[0]
        time.sleep(0.2)
    run.send_signal(signal.SIGTERM)
    out, _ = run.communicate(timeout=60)
    assert run.returncode == 130, out
    assert "Run the same command again to continue" in out and "Traceback" not in out, out
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    assert "p4run" not in links
    assert not (REGISTRY_DIR / "p4run.json").exists()
