"""Experiment throughput: the demo's points run one at a time and with `--jobs auto`.

Method:
- the experiment: the demo's (experiments/studies/demo-fifo-vs-red.yaml: FIFO against RED
  at 98 % of 10 Mbit/s) with REPETITIONS repetitions and DURATION_S measured instead of
  180 s, so that both modes fit in about a quarter of an hour; its 30 s warm-up is kept.
- throughput: the points' warm-up plus measured seconds, summed over the ok points,
  divided by the wall-clock time of `p4aqm run` (bring-up and teardown included).
- fidelity, per mode, over its points: the worst router's p99 and max departure
  lateness, late page starts, the point's CPU and the machine's busy share
  (each point's fidelity.json), and the points outside their bounds.
- results: each point's response-time median in both modes (the same point, so the
  same seed and users) and the two-sample Kolmogorov-Smirnov statistic between the
  modes with its p-value: were the points perturbed by their neighbours, this is where
  it shows. The p-value treats requests as independent, which they are not (they share
  a run's queue), so it overstates significance: read D, the largest gap between the two
  CDFs, against what two runs of one seed in one mode differ by (TCP's timing is not
  seeded).
"""

import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml
from scipy import stats

from p4aqm.experiments.fidelity import read_fidelity
from p4aqm.report.load import load_point, load_results

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "experiments" / "studies" / "demo-fifo-vs-red.yaml"
P4AQM = str(Path(sys.executable).parent / "p4aqm")
REPETITIONS = 3
DURATION_S = 60


@dataclass
class ModeRun:
    jobs: str
    wall_s: float
    results: Path
    point_seconds: float
    ok_points: int
    points: int
    most_at_once: int
    starts: list[tuple[float, int]]  # (s into the run, points running with it) per start


def experiment_file(folder: Path) -> Path:
    document = yaml.safe_load(DEMO.read_text())
    document["duration_s"] = DURATION_S
    document["repetitions"] = REPETITIONS
    web = document["traffic"]["web"]
    web["calibration"] = str((DEMO.parent / web["calibration"]).resolve())
    path = folder / "demo-bench.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def run_mode(experiment: Path, folder: Path, jobs: str) -> ModeRun:
    results = folder / f"jobs-{jobs}"
    command = [P4AQM, "run", str(experiment), "-o", str(results), "--jobs", jobs]
    start = time.monotonic()
    # The concurrent runner says "(N running)", the new point included, as it starts each
    # point: each start's time into the run and its N, read as the lines come.
    starts: list[tuple[float, int]] = []
    # rich wraps at 80 columns into a pipe; the run's errors go to our stderr.
    wide = {**os.environ, "COLUMNS": "1000"}
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=wide) as process:
        assert process.stdout is not None
        for line in process.stdout:
            if found := re.search(r"\((\d+) running\)", line):
                starts.append((time.monotonic() - start, int(found.group(1))))
    wall_s = time.monotonic() - start
    running = [n for _, n in starts]
    points = load_results(results, jobs)
    ok = [p for p in points if p.status == "ok"]
    per_point = [
        p.manifest["experiment"]["warmup_s"] + p.manifest["experiment"]["duration_s"] for p in ok
    ]
    most = max(running, default=1)
    return ModeRun(jobs, wall_s, results, sum(per_point), len(ok), len(points), most, starts)


def fidelity_line(run: ModeRun) -> str:
    figures = [f for p in sorted((run.results / "points").iterdir()) if (f := read_fidelity(p))]
    if not figures:
        return f"  --jobs {run.jobs}: no fidelity figures"
    p99 = [max(r["lateness_p99_us"] for r in f["routers"].values()) for f in figures]
    worst = [max(r["lateness_max_us"] for r in f["routers"].values()) for f in figures]
    late = sum(f["pages"].get("late_pages", 0) for f in figures)
    pages = sum(f["pages"].get("pages", 0) for f in figures)
    cpu = [f["cpu"]["point_cpu_cores"] or 0.0 for f in figures]
    busy = [f["cpu"]["machine_busy_share"] or 0.0 for f in figures]
    outside = sum(bool(f["outside_bounds"]) for f in figures)
    return (
        f"  --jobs {run.jobs:<4}: lateness p99 median {statistics.median(p99):6.1f} µs"
        f" (worst {max(p99):6.1f}; bound {figures[0]['lateness_p99_bound_us']:.1f}), max"
        f" {max(worst):8.1f} µs; late page starts {late} of {pages}; point CPU median"
        f" {statistics.median(cpu):.2f} cores; machine busy median {statistics.median(busy):.0%};"
        f" {outside} of {len(figures)} points outside bounds"
    )


def response_times(run: ModeRun) -> dict[str, pd.Series]:
    """Each ok point's completed requests' response times (ms), by point name."""
    times = {}
    for point in load_results(run.results, run.jobs):
        if point.status == "ok":
            web = load_point(point).web
            times[point.name] = web[web["outcome"] == "ok"]["response_time_ms"]
    return times


def report() -> list[str]:
    lines = []
    with tempfile.TemporaryDirectory(prefix="p4aqm-bench-jobs-") as temp:
        folder = Path(temp)
        experiment = experiment_file(folder)
        runs = [run_mode(experiment, folder, jobs) for jobs in ("1", "auto")]
        for run in runs:
            lines.append(
                f"  --jobs {run.jobs:<4}: {run.ok_points}/{run.points} points ok,"
                f" {run.point_seconds:.0f} s of points in {run.wall_s:.0f} s of wall clock:"
                f" {run.point_seconds / run.wall_s:.2f} point-seconds per second;"
                f" at most {run.most_at_once} at once"
            )
        one, auto = runs
        if one.point_seconds and auto.point_seconds:
            speedup = (auto.point_seconds / auto.wall_s) / (one.point_seconds / one.wall_s)
            lines.append(f"  --jobs auto / --jobs 1: {speedup:.2f}x (target: at least 3x)")
        lines += [fidelity_line(run) for run in runs]
        lines.append(
            "  --jobs auto starts (s into the run: points running, itself included): "
            + ", ".join(f"{at:.0f}: {n}" for at, n in auto.starts)
        )
        times = [response_times(run) for run in runs]
        for name in sorted(set(times[0]) & set(times[1])):
            a, b = times[0][name], times[1][name]
            ks = stats.ks_2samp(a, b)
            lines.append(
                f"  {name}: response-time median {a.median():.0f} ms (--jobs 1, n={len(a)})"
                f" vs {b.median():.0f} ms (auto, n={len(b)}); KS D={ks.statistic:.3f},"
                f" p={ks.pvalue:.3g}"
            )
    return lines


if __name__ == "__main__":
    print("\n".join(report()))
