"""The Slurm backend without a cluster: the job array's script, the submission (a fake
sbatch), and `p4aqm status` from results and a fake squeue and sacct. The same paths
against a real single-node Slurm cluster are in test_slurm_cluster.py."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from p4aqm.experiments.slurm import SlurmOptions, array_spec, batch_script, submit, time_limit
from p4aqm.experiments.status import point_states, record_submission, write_points

REPO = Path(__file__).resolve().parents[2]
SMOKE = REPO / "experiments" / "examples" / "smoke.yaml"
P4AQM = str(Path(sys.executable).parent / "p4aqm")
POINTS = [(1, "p01_a"), (2, "p02_b"), (3, "p03_c"), (4, "p04_d"), (5, "p05_e"), (6, "p06_f")]


def fake_command(bin_dir: Path, name: str, output: str, log: Path | None = None) -> None:
    """A stand-in for a Slurm command: prints output; records its arguments in log."""
    record = f'echo "$@" >> {log}\n' if log else ""
    path = bin_dir / name
    path.write_text(f"#!/bin/bash\n{record}cat <<'EOF'\n{output}\nEOF\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def manifest(results: Path, name: str, status: str) -> None:
    folder = results / "points" / name
    folder.mkdir(parents=True)
    error = None if status == "ok" else "RuntimeError: the monitor did not start"
    (folder / "manifest.json").write_text(json.dumps({"status": status, "error": error}))


def test_array_spec_and_time_limit() -> None:
    assert array_spec([5, 1, 2, 3, 7, 8]) == "1-3,5,7-8"
    assert array_spec([4]) == "4"
    assert time_limit(3600) == "01:40:00"  # 1.5 h and 10 min


def test_the_batch_script_runs_one_point_per_task_on_a_whole_node(tmp_path: Path) -> None:
    script = batch_script("smoke", SMOKE, tmp_path / "r", "quick", [1, 2], SlurmOptions(), 60)
    assert "#SBATCH --array=1-2" in script
    assert "#SBATCH --exclusive" in script
    assert f"#SBATCH --output={tmp_path / 'r' / 'slurm'}/%A_%a.log" in script
    assert "#SBATCH --time=00:12:00" in script
    last = script.strip().splitlines()[-1]
    assert last.startswith(f"exec {P4AQM} run {SMOKE} -o {tmp_path / 'r'} --profile quick")
    assert last.endswith('--point "$SLURM_ARRAY_TASK_ID"')
    shared = SlurmOptions("lab", "02:00:00", 2, ("--mem=4G",))
    script = batch_script("smoke", SMOKE, tmp_path, None, [3], shared, 60)
    assert "--exclusive" not in script and "#SBATCH --cpus-per-task=2" in script
    assert "#SBATCH --partition=lab" in script and "#SBATCH --time=02:00:00" in script
    assert "#SBATCH --mem=4G" in script and "--profile" not in script


def test_status_from_manifests_and_the_queue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = tmp_path / "r"
    results.mkdir()
    write_points(results, POINTS)
    manifest(results, "p01_a", "ok")
    manifest(results, "p02_b", "failed")
    record_submission(results, "77", {3: "p03_c", 4: "p04_d", 5: "p05_e"})
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_command(bin_dir, "squeue", "77_3|RUNNING\n77_4|PENDING")
    fake_command(bin_dir, "sacct", "77_5|CANCELLED by 0")
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    states = {s.name: (s.state, s.detail) for s in point_states(results)}
    assert states["p01_a"] == ("done", "")
    assert states["p02_b"][0] == "failed" and "monitor did not start" in states["p02_b"][1]
    assert states["p03_c"] == ("running", "Slurm task 77_3")
    assert states["p04_d"] == ("pending", "Slurm task 77_4")
    assert states["p05_e"][0] == "failed" and "77_5" in states["p05_e"][1]
    assert "CANCELLED" in states["p05_e"][1]
    assert states["p06_f"] == ("not run", "")
    # Without accounting (no sacct), a task gone from the queue without a result is failed.
    (bin_dir / "sacct").unlink()
    states = {s.name: (s.state, s.detail) for s in point_states(results)}
    assert states["p05_e"][0] == "failed" and "no longer queued" in states["p05_e"][1]


def test_a_resubmission_takes_only_the_points_not_done_queued_or_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = tmp_path / "r"
    results.mkdir()
    write_points(results, POINTS)
    manifest(results, "p01_a", "ok")
    manifest(results, "p02_b", "failed")
    record_submission(results, "77", {3: "p03_c", 4: "p04_d", 5: "p05_e"})
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "sbatch.log"
    fake_command(bin_dir, "sbatch", "78", log)
    fake_command(bin_dir, "squeue", "77_3|RUNNING\n77_4|PENDING")
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    job, submitted = submit("smoke", SMOKE, results, None, POINTS, SlurmOptions(), 60)
    assert job == "78"
    assert submitted == [(2, "p02_b"), (5, "p05_e"), (6, "p06_f")]
    script = Path(log.read_text().split()[-1]).read_text()
    assert "#SBATCH --array=2,5-6" in script
    jobs = [
        json.loads(line) for line in (results / "slurm" / "jobs.jsonl").read_text().splitlines()
    ]
    assert jobs[-1] == {"job_id": "78", "tasks": {"2": "p02_b", "5": "p05_e", "6": "p06_f"}}


def test_run_point_and_backend_errors(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [P4AQM, "run", str(SMOKE), "-o", str(tmp_path / "r"), *args],
            capture_output=True,
            text=True,
            env={**os.environ, "PATH": str(Path(sys.executable).parent)},  # no sbatch
        )

    out = run("--point", "3")
    assert out.returncode == 2 and "--point 3" in out.stderr and "2 points (1..2)" in out.stderr
    one = run("--point", "2", "--dry-run")
    assert one.returncode == 0 and "load_percent-80" in one.stdout
    assert "load_percent-50" not in one.stdout and "1 of 1 points" in one.stdout
    both = run("--point", "1", "--backend", "slurm")
    assert both.returncode == 2 and "--point runs one point here" in both.stderr
    no_slurm = run("--backend", "slurm")
    assert no_slurm.returncode == 2
    assert "sbatch is not on PATH" in no_slurm.stderr and "Traceback" not in no_slurm.stderr
