"""The Slurm backend of `p4aqm run`: the points not yet complete as one job array, a task
per point, each running `p4aqm run EXP --point K -o RESULTS` on a node of its own.

Nodes need the same p4aqm installation at the same path, root (or CAP_NET_ADMIN and
CAP_SYS_ADMIN, for the network namespaces), and RESULTS on a filesystem every node
shares; netem is not needed (the switch delays packets). A task writes its point into
RESULTS/.inflight/NAME and renames it into points/ when whole, so a killed task leaves
no half point. Its log is RESULTS/slurm/JOBID_INDEX.log.
"""

import math
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from p4aqm.experiments.status import point_states, record_submission

# The time a task asks for: the point's own length, this factor, and a margin.
TIME_FACTOR = 1.5
TIME_MARGIN_S = 600


class SlurmError(RuntimeError):
    """A submission that cannot be made; the message says why."""


@dataclass(frozen=True)
class SlurmOptions:
    partition: str | None = None
    time: str | None = None  # Slurm's time format; None: from the point's length
    cpus_per_task: int | None = None  # None: a whole node (--exclusive)
    extra: tuple[str, ...] = ()  # any other sbatch options, as given


def array_spec(indices: list[int]) -> str:
    """Slurm's --array value: runs of consecutive indices as ranges (1-3,5,7-8)."""
    parts: list[str] = []
    start = prev = None
    for i in sorted(indices):
        if start is None:
            start = prev = i
        elif i == prev + 1:
            prev = i
        else:
            parts.append(f"{start}-{prev}" if prev != start else f"{start}")
            start = prev = i
    if start is not None:
        parts.append(f"{start}-{prev}" if prev != start else f"{start}")
    return ",".join(parts)


def time_limit(per_point_s: float) -> str:
    minutes = math.ceil((per_point_s * TIME_FACTOR + TIME_MARGIN_S) / 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}:00"


def batch_script(
    name: str,
    experiment: Path,
    results: Path,
    profile: str | None,
    indices: list[int],
    options: SlurmOptions,
    per_point_s: float,
) -> str:
    p4aqm = Path(sys.executable).parent / "p4aqm"
    lines = [
        "#!/bin/bash",
        f"#SBATCH --job-name=p4aqm-{name}",
        f"#SBATCH --array={array_spec(indices)}",
        f"#SBATCH --output={results.resolve() / 'slurm' / '%A_%a.log'}",
        f"#SBATCH --time={options.time or time_limit(per_point_s)}",
    ]
    if options.cpus_per_task is None:
        lines.append("#SBATCH --exclusive")  # real-time emulation: no shared CPUs
    else:
        lines.append(f"#SBATCH --cpus-per-task={options.cpus_per_task}")
    if options.partition:
        lines.append(f"#SBATCH --partition={options.partition}")
    lines += [f"#SBATCH {extra}" for extra in options.extra]
    command = [str(p4aqm), "run", str(experiment.resolve()), "-o", str(results.resolve())]
    command += ["--profile", profile] if profile else []
    lines.append(
        "exec " + " ".join(shlex.quote(c) for c in command) + ' --point "$SLURM_ARRAY_TASK_ID"'
    )
    return "\n".join(lines) + "\n"


def submit(
    name: str,
    experiment: Path,
    results: Path,
    profile: str | None,
    points: list[tuple[int, str]],
    options: SlurmOptions,
    per_point_s: float,
) -> tuple[str, list[tuple[int, str]]]:
    """Submit the points that are neither done nor queued nor running; the job id ("" if
    none was needed) and the points submitted."""
    if shutil.which("sbatch") is None:
        raise SlurmError("sbatch is not on PATH: --backend slurm needs a Slurm client")
    busy = {"done", "pending", "running"}
    states = {s.name: s.state for s in point_states(results)}
    todo = [(i, n) for i, n in points if states.get(n) not in busy]
    if not todo:
        return "", []
    script = batch_script(
        name, experiment, results, profile, [i for i, _ in todo], options, per_point_s
    )
    folder = results / "slurm"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"array-{len(list(folder.glob('array-*.sh'))) + 1}.sh"
    path.write_text(script)
    done = subprocess.run(["sbatch", "--parsable", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SlurmError(f"sbatch refused {path}: {done.stderr.strip() or done.stdout.strip()}")
    job_id = done.stdout.strip().split(";")[0]
    record_submission(results, job_id, {i: n for i, n in todo})
    return job_id, todo
