"""The Slurm backend on a real single-node cluster, started by the fixture on loopback:
munged (if none runs), slurmctld and slurmd from the Debian packages slurm-wlm and munge,
with a configuration of their own under a temporary folder, stopped afterwards.

- The smoke experiment's two points run as a job array; the merged results and report
  hold what a local run of the same file gives, but for what depends on timing.
- A cancelled array task (scancel) shows as failed in `p4aqm status`, and a rerun of the
  same command submits and completes only that point.

Skips, saying why, where the Slurm daemons are not installed.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
import yaml

from programs import P4SRC, compile_program

REPO = Path(__file__).resolve().parents[2]
SMOKE = REPO / "experiments" / "examples" / "smoke.yaml"
P4AQM = str(Path(sys.executable).parent / "p4aqm")
DAEMONS = ("slurmctld", "slurmd", "munged", "sbatch", "squeue", "scancel")
# The smoke experiment's two points take about 45 s each; a task waits for the node.
WAIT_S = 600

pytestmark = [
    pytest.mark.skipif(
        any(shutil.which(d) is None for d in DAEMONS),
        reason="Slurm is not installed (apt-get install slurm-wlm munge; scripts/setup.sh does)",
    ),
    pytest.mark.skipif(os.geteuid() != 0, reason="the dumbbell needs root (namespaces, veths)"),
]


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The smoke experiment, with its programs compiled into a folder of its own."""
    build = tmp_path_factory.mktemp("build")
    for program in ("l3_forward", "red"):
        compile_program(P4SRC / f"{program}.p4", build)
    experiment = yaml.safe_load(SMOKE.read_text())
    experiment["topology"]["build_dir"] = str(build)
    experiment["traffic"]["web"]["calibration"] = str(REPO / "calibrations" / "web-tcpeval.yaml")
    path = tmp_path_factory.mktemp("experiment") / "smoke.yaml"
    path.write_text(yaml.safe_dump(experiment))
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _munge_works() -> bool:
    encode = subprocess.run(["munge", "-n"], capture_output=True)
    if encode.returncode != 0:
        return False
    return subprocess.run(["unmunge"], input=encode.stdout, capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A one-node cluster; yields the environment that points Slurm's clients at it."""
    folder = tmp_path_factory.mktemp("slurm")
    node = socket.gethostname().split(".")[0]
    cpus = os.cpu_count() or 1
    conf = folder / "slurm.conf"
    conf.write_text(
        "\n".join(
            [
                "ClusterName=p4aqmtest",
                f"SlurmctldHost={node}(127.0.0.1)",
                f"SlurmctldPort={_free_port()}",
                f"SlurmdPort={_free_port()}",
                "SlurmUser=root",
                "SlurmdUser=root",
                "AuthType=auth/munge",
                f"StateSaveLocation={folder / 'state'}",
                f"SlurmdSpoolDir={folder / 'spool'}",
                f"SlurmctldPidFile={folder / 'slurmctld.pid'}",
                f"SlurmdPidFile={folder / 'slurmd.pid'}",
                f"SlurmctldLogFile={folder / 'slurmctld.log'}",
                f"SlurmdLogFile={folder / 'slurmd.log'}",
                "ProctrackType=proctrack/linuxproc",
                "TaskPlugin=task/none",
                "SelectType=select/cons_tres",
                "SelectTypeParameters=CR_Core",
                "ReturnToService=2",
                "MpiDefault=none",
                "JobCompType=jobcomp/none",
                "AccountingStorageType=accounting_storage/none",
                "JobAcctGatherType=jobacct_gather/none",
                "MinJobAge=600",
                "KillWait=60",
                f"NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN",
                f"PartitionName=test Nodes={node} Default=YES MaxTime=INFINITE State=UP",
            ]
        )
        + "\n"
    )
    for sub in ("state", "spool"):
        (folder / sub).mkdir()
    env = {**os.environ, "SLURM_CONF": str(conf)}
    munged = None
    if not _munge_works():
        Path("/run/munge").mkdir(parents=True, exist_ok=True)
        munged = subprocess.Popen(
            ["munged", "--force", "--foreground"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not _munge_works() and time.monotonic() < deadline:
            time.sleep(0.2)
        if not _munge_works():
            munged.terminate()
            pytest.fail("munged did not start (is /etc/munge/munge.key there?)")
    logs = [open(folder / f"{d}.out", "w") for d in ("slurmctld", "slurmd")]  # noqa: SIM115
    daemons = [
        subprocess.Popen(
            ["slurmctld", "-D", "-i", "-f", str(conf)],
            env=env,
            stdout=logs[0],
            stderr=subprocess.STDOUT,
        ),
        subprocess.Popen(
            ["slurmd", "-D", "-N", node, "-f", str(conf)],
            env=env,
            stdout=logs[1],
            stderr=subprocess.STDOUT,
        ),
    ]
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            info = subprocess.run(
                ["sinfo", "-h", "-o", "%T"], env=env, capture_output=True, text=True
            )
            if info.returncode == 0 and info.stdout.strip() in ("idle", "mixed", "allocated"):
                break
            time.sleep(1)
        else:
            pytest.fail(f"the node did not come up; see {folder}/*.log")
        yield env
    finally:
        for daemon in daemons:
            daemon.terminate()
        for daemon in daemons:
            try:
                daemon.wait(timeout=30)
            except subprocess.TimeoutExpired:
                daemon.kill()
        if munged is not None:
            munged.terminate()
        for log in logs:
            log.close()


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([P4AQM, *args], env=env, capture_output=True, text=True)


def _wait_until_idle(env: dict[str, str], job_id: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        queue = subprocess.run(
            ["squeue", "-h", "-j", job_id], env=env, capture_output=True, text=True
        )
        if queue.returncode == 0 and not queue.stdout.strip():
            return
        time.sleep(2)
    pytest.fail(f"job {job_id} still queued after {WAIT_S} s")


def _job_id(stdout: str) -> str:
    return stdout.split("submitted job array ")[1].split(":")[0]


def _states(env: dict[str, str], results: Path) -> dict[str, str]:
    status = _run(env, "status", str(results))
    assert status.returncode == 0, status.stderr
    states = {}
    for line in status.stdout.splitlines():
        cells = [c.strip() for c in line.split("│") if c.strip()]
        if len(cells) >= 3 and cells[0].isdigit():
            states[cells[1]] = cells[2]
    return states


def test_the_smoke_experiment_as_a_job_array(
    cluster: dict[str, str], smoke: Path, tmp_path: Path
) -> None:
    results = tmp_path / "slurm-results"
    submitted = _run(cluster, "run", str(smoke), "-o", str(results), "--backend", "slurm")
    assert submitted.returncode == 0, submitted.stderr
    _wait_until_idle(cluster, _job_id(submitted.stdout))
    states = _states(cluster, results)
    assert list(states.values()) == ["done", "done"], states
    report = _run(cluster, "report", str(results))
    assert report.returncode == 0, report.stderr

    local = tmp_path / "local-results"
    ran = _run(cluster, "run", str(smoke), "-o", str(local))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert _run(cluster, "report", str(local)).returncode == 0
    # Everything but what depends on timing: the points, their resolved experiment and
    # topology, their users and calibration; the report's rows and columns.
    for point in (local / "points").iterdir():
        mine = json.loads((point / "manifest.json").read_text())
        theirs = json.loads((results / "points" / point.name / "manifest.json").read_text())
        for key in ("status", "point", "sweep", "experiment", "web_users", "calibration"):
            assert mine[key] == theirs[key], (point.name, key)
    a = pd.read_csv(local / "report" / "summary.csv")
    b = pd.read_csv(results / "report" / "summary.csv")
    assert list(a.columns) == list(b.columns)
    assert a["point"].tolist() == b["point"].tolist()
    assert a["web_users"].tolist() == b["web_users"].tolist()


def test_a_cancelled_task_is_failed_and_a_rerun_completes_only_it(
    cluster: dict[str, str], smoke: Path, tmp_path: Path
) -> None:
    results = tmp_path / "results"
    command = ("run", str(smoke), "-o", str(results), "--backend", "slurm")
    first = _run(cluster, *command)
    assert first.returncode == 0, first.stderr
    job = _job_id(first.stdout)
    cancelled = subprocess.run(["scancel", f"{job}_1"], env=cluster, capture_output=True)
    assert cancelled.returncode == 0, cancelled.stderr
    _wait_until_idle(cluster, job)
    states = _states(cluster, results)
    assert list(states.values()) == ["failed", "done"], states
    again = _run(cluster, *command)
    assert again.returncode == 0, again.stderr
    assert "1 of 2 points (tasks 1)" in again.stdout
    _wait_until_idle(cluster, _job_id(again.stdout))
    assert list(_states(cluster, results).values()) == ["done", "done"]
