"""What a point's manifest records, so that a result can be traced and rerun: the
resolved config, the code, the tools, the machine, the times, the calibration."""

import os
import platform
import subprocess
from importlib.metadata import version
from pathlib import Path
from typing import Any

from p4aqm.experiments.spec import Point

REPO = Path(__file__).resolve().parents[2]


def _run(*command: str) -> str:
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unavailable ({exc})"
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr) else ""


def git_state() -> dict[str, Any]:
    commit = _run("git", "-C", str(REPO), "rev-parse", "HEAD")
    dirty = _run("git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": bool(dirty)}


def versions() -> dict[str, str]:
    return {
        "p4aqm": version("p4aqm"),
        "python": platform.python_version(),
        "kernel": platform.release(),
        "mininet": version("mininet"),
        "finsy": version("finsy"),
    }


def machine() -> dict[str, Any]:
    cpuinfo = Path("/proc/cpuinfo").read_text()
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in cpuinfo.splitlines()
            if line.startswith("model name")
        ),
        "",
    )
    memory_kb = int(Path("/proc/meminfo").read_text().split()[1])
    return {
        "hostname": platform.node(),
        "cpus": os.cpu_count(),
        "cpu_model": model,
        "memory_bytes": memory_kb * 1024,
        "load_average": os.getloadavg(),
    }


def point_manifest(
    point: Point,
    source: Path,
    started_ns: int,
    ended_ns: int,
    status: str,
    error: str | None,
    outcome: dict[str, Any],
) -> dict[str, Any]:
    topology = outcome.get("topology", {})
    return {
        "status": status,
        "error": error,
        "point": {"index": point.index, "name": point.name, "repetition": point.repetition},
        "sweep": point.overrides,
        "experiment_file": str(source.resolve()),
        "experiment": point.experiment.model_dump(mode="json"),
        "topology": point.topology.to_json(),
        "web_users": point.web_users,
        "calibration": point.calibration.model_dump(mode="json") if point.calibration else None,
        "window": outcome.get("window"),
        "epoch_ns": outcome.get("epoch_ns"),
        "seeds": outcome.get("seeds"),
        "fidelity": outcome.get("fidelity"),
        # Per tuning rule, what it did.
        "tuned": outcome.get("tuned", {}),
        "started_ns": started_ns,
        "ended_ns": ended_ns,
        "hosts": topology.get("hosts"),
        "switch": topology.get("switch"),
        "mechanism": topology.get("mechanism"),
        "git": git_state(),
        "versions": versions(),
        "machine": machine(),
    }
