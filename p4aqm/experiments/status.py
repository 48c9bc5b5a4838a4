"""`p4aqm status RESULTS/`: each point of a results folder as done, failed, running,
pending, interrupted or not run, from its manifests, the points in flight here and, for
points submitted to Slurm, from `squeue` (and `sacct` where the cluster keeps
accounting).

A point in flight on this machine (RESULTS/.inflight/NAME/) names the process running
it (RUNNING_FILE): running while that process lives, interrupted once it is gone (a
kill cut it short; the same `p4aqm run` redoes it).

A point is done when its manifest says ok and failed when it says failed. A point whose
Slurm task is no longer queued or running, and that left no manifest, is failed too: its
task was cancelled, timed out, or lost its node (a task writes its manifest last, so a
killed one leaves none).
"""

import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from p4aqm.topology.registry import OwnedProcess

POINTS_FILE = "points.json"  # every point of the sweep: [{"index", "name"}]
JOBS_FILE = "slurm/jobs.jsonl"  # one line per submission: job_id, tasks {index: name}
QUEUED = {"PENDING", "CONFIGURING", "REQUEUED", "RESIZING", "SUSPENDED"}
RUNNING = {"RUNNING", "COMPLETING", "STAGE_OUT", "SIGNALING"}
RUNNING_FILE = ".running.json"  # in a point's .inflight folder: the process running it


@dataclass(frozen=True)
class PointState:
    index: int
    name: str
    state: str  # done, failed, running, pending, interrupted, not run
    detail: str = ""


def write_points(results: Path, points: list[tuple[int, str]]) -> None:
    """Record the sweep's points (index, name), so that status knows the missing ones."""
    temp = results / f".{POINTS_FILE}.tmp"
    temp.write_text(json.dumps([{"index": i, "name": n} for i, n in points], indent=1) + "\n")
    temp.replace(results / POINTS_FILE)


def record_submission(results: Path, job_id: str, tasks: dict[int, str]) -> None:
    path = results / JOBS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as jobs:
        jobs.write(json.dumps({"job_id": job_id, "tasks": tasks}) + "\n")


def submissions(results: Path) -> list[dict]:
    path = results / JOBS_FILE
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _manifest(results: Path, name: str) -> dict | None:
    try:
        return json.loads((results / "points" / name / "manifest.json").read_text())
    except (OSError, ValueError):
        return None


def slurm_states(job_ids: list[str]) -> dict[str, str]:
    """Array task (JOBID_INDEX) -> its state, from squeue (queued and running tasks) and
    sacct (finished ones, where accounting is kept). Empty without Slurm."""
    states: dict[str, str] = {}
    if not job_ids:
        return states
    jobs = ",".join(job_ids)
    if shutil.which("sacct"):
        done = subprocess.run(
            ["sacct", "-n", "-P", "-X", "-j", jobs, "-o", "JobID,State"],
            capture_output=True,
            text=True,
        )
        if done.returncode == 0:
            for line in done.stdout.splitlines():
                task, _, state = line.partition("|")
                states[task.strip()] = state.split()[0] if state.strip() else ""
    if shutil.which("squeue"):
        queue = subprocess.run(
            ["squeue", "-h", "-r", "-j", jobs, "-o", "%i|%T"], capture_output=True, text=True
        )
        if queue.returncode == 0:
            for line in queue.stdout.splitlines():
                task, _, state = line.partition("|")
                states[task.strip()] = state.strip()
    return states


def mark_running(inflight: Path) -> None:
    """Name this process as the one running the point in `inflight`."""
    owner = OwnedProcess.of(os.getpid(), "p4aqm run")
    assert owner is not None
    (inflight / RUNNING_FILE).write_text(json.dumps(dataclasses.asdict(owner)) + "\n")


def _in_flight(results: Path, index: int, name: str) -> PointState | None:
    running = results / ".inflight" / name / RUNNING_FILE
    try:
        owner = OwnedProcess(**json.loads(running.read_text()))
    except (OSError, ValueError, TypeError):
        return None
    if owner.alive():
        return PointState(index, name, "running", f"here, process {owner.pid}")
    return PointState(index, name, "interrupted", "killed mid-run; the same p4aqm run redoes it")


def point_states(results: Path) -> list[PointState]:
    try:
        points = json.loads((results / POINTS_FILE).read_text())
    except (OSError, ValueError):
        points = [
            {"index": 0, "name": p.name}
            for p in sorted((results / "points").glob("*"))
            if p.is_dir()
        ]
    submitted: dict[str, str] = {}  # point name -> its latest task, JOBID_INDEX
    for job in submissions(results):
        for index, name in job["tasks"].items():
            submitted[name] = f"{job['job_id']}_{index}"
    slurm = slurm_states(sorted({task.split("_")[0] for task in submitted.values()}))
    states = []
    for point in points:
        index, name = point["index"], point["name"]
        manifest = _manifest(results, name)
        task = submitted.get(name)
        task_state = slurm.get(task, "") if task else ""
        if task_state in QUEUED:
            states.append(PointState(index, name, "pending", f"Slurm task {task}"))
        elif task_state in RUNNING:
            states.append(PointState(index, name, "running", f"Slurm task {task}"))
        elif manifest is not None and manifest.get("status") == "ok":
            states.append(PointState(index, name, "done"))
        elif manifest is not None:
            states.append(PointState(index, name, "failed", str(manifest.get("error"))))
        elif task is not None:
            why = task_state or "no longer queued"
            states.append(
                PointState(
                    index, name, "failed", f"Slurm task {task} ended without a result ({why})"
                )
            )
        else:
            states.append(_in_flight(results, index, name) or PointState(index, name, "not run"))
    return states


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="p4aqm status", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="a results folder (p4aqm run -o)")
    args = parser.parse_args(argv)
    if not (args.results / POINTS_FILE).exists() and not (args.results / "points").is_dir():
        print(f"p4aqm status: error: {args.results}: not a results folder", file=sys.stderr)
        return 2
    states = point_states(args.results)
    table = Table("point", "name", "state", "detail")
    for s in states:
        table.add_row(str(s.index), s.name, s.state, s.detail)
    console = Console()
    console.print(table)
    counts = {k: sum(s.state == k for s in states) for k in dict.fromkeys(s.state for s in states)}
    console.print(", ".join(f"{n} {k}" for k, n in counts.items()))
    return 0
