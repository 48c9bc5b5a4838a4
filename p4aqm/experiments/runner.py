"""`p4aqm run EXP.yaml -o RESULTS/`: every point of the sweep, one after the other.

A point runs in RESULTS/.inflight/NAME/ and is renamed to RESULTS/points/NAME/ when its
manifest is written, so a folder under points/ is always whole. A rerun skips the points
whose manifest says "ok", retries failed ones, and throws away what an interrupted run
left in .inflight/: an interruption loses at most the point in flight. A point that
fails is recorded with its error (its manifest, status "failed") and the sweep goes on.

`--jobs N` runs N points at once, each in a sandbox of its own, and `--jobs auto` as
many as the machine runs within the points' fidelity bounds (p4aqm/experiments/jobs.py).
`--point K` runs the sweep's K-th point only (as a Slurm array task does);
`--backend slurm` submits the points not yet complete as one job array
(p4aqm/experiments/slurm.py) instead of running them here. `p4aqm status RESULTS/` shows
where each point is.
"""

import argparse
import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from p4aqm.experiments.jobs import ConcurrentRun
from p4aqm.experiments.manifest import point_manifest
from p4aqm.experiments.point import PointRun
from p4aqm.experiments.slurm import SlurmError, SlurmOptions, submit
from p4aqm.experiments.spec import Experiment, ExperimentError, Point, load_experiment
from p4aqm.experiments.status import RUNNING_FILE, mark_running, write_points
from p4aqm.schema import Column, LeafName, field_name
from p4aqm.topology.cgroup import joined_cgroup

# Bring-up, teardown and collection of a point, for --dry-run's estimate (measured: see
# the note of issue #14; a point of the smoke experiment took about this much over its
# warm-up and duration).
OVERHEAD_S = 8.0


def is_complete(folder: Path) -> bool:
    try:
        return json.loads((folder / "manifest.json").read_text()).get("status") == "ok"
    except (OSError, ValueError):
        return False


def _live(figures: dict[str, float]) -> str:
    parts = [f"{figures['elapsed_s']:.0f}/{figures['total_s']:.0f} s"]
    for direction, label in (("server_to_client_bps", "s->c"), ("client_to_server_bps", "c->s")):
        if direction in figures:
            parts.append(f"{label} {figures[direction] / 1e6:.2f} Mbit/s")
    if Column.QDEPTH_PKTS in figures:
        drops = figures[field_name(LeafName.TM_DROPS)]
        parts.append(f"queue {figures[Column.QDEPTH_PKTS]:.0f} pkts, drops {drops:.0f}")
    return "  ".join(parts)


def run_point(point: Point, results: Path, source: Path, on_figures: Any) -> str:  # noqa: ANN401
    inflight = results / ".inflight" / point.name
    shutil.rmtree(inflight, ignore_errors=True)
    inflight.mkdir(parents=True)
    mark_running(inflight)
    started = time.time_ns()
    status, error, outcome = "ok", None, {}
    try:
        with joined_cgroup(f"point-{os.getpid()}") as cgroup:
            outcome = PointRun(point, inflight, cgroup).run(on_figures)
    except KeyboardInterrupt:
        raise
    except Exception as exc:  # noqa: BLE001 - recorded with the point; the sweep goes on
        status, error = "failed", f"{type(exc).__name__}: {exc}"
    manifest = point_manifest(point, source, started, time.time_ns(), status, error, outcome)
    temp = inflight / ".manifest.json.tmp"
    temp.write_text(json.dumps(manifest, indent=2, default=str) + "\n")
    temp.replace(inflight / "manifest.json")
    (inflight / RUNNING_FILE).unlink()
    final = results / "points" / point.name
    final.parent.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(final, ignore_errors=True)  # a failed attempt's folder
    inflight.replace(final)
    return status if error is None else f"{status}: {error}"


def _jobs(text: str) -> int | None:
    """--jobs: a count of at least 1, or "auto" (None)."""
    if text == "auto":
        return None
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of points or auto") from None
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"{jobs}: at least 1")
    return jobs


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="p4aqm run", description=__doc__.split("\n\n")[0])
    parser.add_argument("experiment", type=Path)
    parser.add_argument(
        "-o", "--output", type=Path, help="results folder (with --dry-run: to see what is done)"
    )
    parser.add_argument("--dry-run", action="store_true", help="print the points and the time")
    parser.add_argument("--profile", help="apply one of the file's profiles (e.g. quick, full)")
    parser.add_argument("--point", type=int, metavar="K", help="run the K-th point only")
    parser.add_argument(
        "--jobs",
        type=_jobs,
        default=1,
        metavar="N|auto",
        help="points at once on this machine, each in its own sandbox (default 1)",
    )
    parser.add_argument("--backend", choices=("local", "slurm"), default="local")
    slurm = parser.add_argument_group("slurm backend")
    slurm.add_argument("--partition", help="the Slurm partition")
    slurm.add_argument("--time", help="each task's limit (default: the point's x1.5 + 10 min)")
    slurm.add_argument(
        "--cpus-per-task",
        type=int,
        help="CPUs per task instead of a whole node (default: --exclusive)",
    )
    slurm.add_argument(
        "--sbatch-option", action="append", default=[], help="another sbatch option, as given"
    )
    return parser


class _Refused(Exception):
    """A run that cannot start: the message says why (exit status 2)."""


def _points_to_run(args: argparse.Namespace) -> tuple[Experiment, list[Point], str]:
    """The experiment, the points this command covers, and the text stored with them."""
    try:
        experiment, points = load_experiment(args.experiment, args.profile)
    except ExperimentError as exc:
        raise _Refused(str(exc)) from None
    text = args.experiment.read_text() + (f"# --profile {args.profile}\n" if args.profile else "")
    stored = args.output / "experiment.yaml" if args.output is not None else None
    if stored is not None and stored.exists() and stored.read_text() != text:
        raise _Refused(
            f"{args.output} holds the results of another experiment file"
            f" ({stored} differs from {args.experiment}); give another -o"
        )
    if args.point is not None:
        if not 1 <= args.point <= len(points):
            raise _Refused(
                f"--point {args.point}: {args.experiment} has"
                f" {len(points)} points (1..{len(points)})"
            )
        points = [points[args.point - 1]]
    return experiment, points, text


def _dry_run(
    experiment: Experiment, points: list[Point], todo: list[Point], jobs: int | None
) -> int:
    console = Console()
    per_point_s = experiment.warmup_s + experiment.duration_s + OVERHEAD_S
    for point in points:
        done = "done" if point not in todo else "to run"
        console.print(f"{point.index:3d} {point.name}  ({done}) users {point.web_users}")
    console.print(
        f"{len(todo)} of {len(points)} points to run, about {len(todo) * per_point_s / 60:.1f}"
        f" min ({per_point_s:.0f} s each: {experiment.warmup_s:g} s warm-up,"
        f" {experiment.duration_s:g} s measured, ~{OVERHEAD_S:g} s bring-up and teardown)"
    )
    if jobs is None:
        console.print("--jobs auto: as many at once as the points' measured CPU allows")
    elif jobs > 1:
        rounds = -(-len(todo) // jobs)
        console.print(f"--jobs {jobs}: about {rounds * per_point_s / 60:.1f} min")
    return 0


def _store_experiment(results: Path, text: str) -> None:
    stored = results / "experiment.yaml"
    results.mkdir(parents=True, exist_ok=True)
    if not stored.exists():
        temp = results / f".experiment.yaml.{os.getpid()}.tmp"  # tasks may race here
        temp.write_text(text)
        temp.replace(stored)


def main(argv: list[str]) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.cpus_per_task is not None and args.cpus_per_task < 1:
        parser.error("--cpus-per-task must be at least 1")
    if args.point is not None and args.backend == "slurm":
        parser.error("--point runs one point here; --backend slurm submits them all")
    if args.output is None and not args.dry_run:
        parser.error("the following arguments are required: -o/--output")
    if args.jobs != 1 and (args.point is not None or args.backend == "slurm"):
        parser.error("--jobs runs points at once here: not with --point or --backend slurm")
    try:
        experiment, points, text = _points_to_run(args)
    except _Refused as exc:
        print(f"p4aqm run: error: {exc}", file=sys.stderr)
        return 2
    if args.dry_run:
        done = args.output is not None
        todo = [p for p in points if not (done and is_complete(args.output / "points" / p.name))]
        return _dry_run(experiment, points, todo, args.jobs)
    results: Path = args.output
    todo = [p for p in points if not is_complete(results / "points" / p.name)]
    _store_experiment(results, text)
    if args.point is None:
        write_points(results, [(p.index, p.name) for p in points])
    per_point_s = experiment.warmup_s + experiment.duration_s + OVERHEAD_S
    if args.backend == "slurm":
        return _submit(args, experiment.name, points, per_point_s, Console())
    if args.point is None:  # a single point's task leaves the others' work alone
        shutil.rmtree(results / ".inflight", ignore_errors=True)
    if args.jobs != 1:
        return _run_concurrently(args, points, todo)
    return run_points(points, todo, results, args.experiment, per_point_s, whole=args.point is None)


def _run_concurrently(args: argparse.Namespace, points: list[Point], todo: list[Point]) -> int:
    console = Console()
    skipped = len(points) - len(todo)
    if skipped:
        console.print(f"{skipped} of {len(points)} points already complete: skipped")
    jobs = "auto" if args.jobs is None else args.jobs
    console.print(f"{len(todo)} points, --jobs {jobs}")
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    started = time.monotonic()
    run = ConcurrentRun(args.experiment, args.output, args.profile, args.jobs, console)
    status = run.run(todo)
    if status in (0, 1):
        shutil.rmtree(args.output / ".inflight", ignore_errors=True)
        console.print(
            f"{len(todo) - run.failed} points ok, {run.failed} failed in"
            f" {time.monotonic() - started:.0f} s; results in {args.output}"
        )
    return status


def run_points(
    points: list[Point],
    todo: list[Point],
    results: Path,
    source: Path,
    per_point_s: float,
    whole: bool,
) -> int:
    """Run `todo` (of `points`) one after another into `results`, with a progress bar;
    the exit status: 0 if every point is ok, 1 if one failed, 130 if interrupted."""
    console = Console()
    skipped = len(points) - len(todo)
    if skipped:
        console.print(f"{skipped} of {len(points)} points already complete: skipped")
    failed = done = 0
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[live]}"),
    )
    # SIGTERM as Ctrl-C: the point in flight tears its topology down on the way out.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        with Progress(*columns, console=console) as progress:
            sweep = progress.add_task("sweep", total=len(todo) * per_point_s, live="")
            for i, point in enumerate(todo, 1):
                progress.update(sweep, description=f"point {i}/{len(todo)} {point.name}")
                base = (i - 1) * per_point_s

                def on_figures(figures: dict[str, float], base: float = base) -> None:
                    progress.update(
                        sweep, completed=base + figures["elapsed_s"], live=_live(figures)
                    )

                status = run_point(point, results, source, on_figures)
                progress.update(sweep, completed=i * per_point_s)
                console.print(f"{point.name}: {status}", markup=False)  # errors hold "[...]"
                failed += status != "ok"
                done += 1
    except KeyboardInterrupt:
        console.print(
            f"interrupted: {done} of {len(todo)} points run this time ({failed} failed); the"
            f" point in flight is lost. Run the same command again to continue."
        )
        return 130
    if whole:
        (results / ".inflight").mkdir(exist_ok=True)
        (results / ".inflight").rmdir()  # every point has left it
    console.print(f"{len(todo) - failed} points ok, {failed} failed; results in {results}")
    return 1 if failed else 0


def _submit(
    args: argparse.Namespace,
    name: str,
    points: list[Point],
    per_point_s: float,
    console: Console,
) -> int:
    options = SlurmOptions(args.partition, args.time, args.cpus_per_task, tuple(args.sbatch_option))
    try:
        job_id, submitted = submit(
            name,
            args.experiment,
            args.output,
            args.profile,
            [(p.index, p.name) for p in points],
            options,
            per_point_s,
        )
    except SlurmError as exc:
        print(f"p4aqm run: error: {exc}", file=sys.stderr)
        return 2
    if not submitted:
        console.print("every point is done, queued or running: nothing to submit")
        return 0
    console.print(
        f"submitted job array {job_id}: {len(submitted)} of {len(points)} points"
        f" (tasks {', '.join(str(i) for i, _ in submitted)}); follow it with"
        f" `p4aqm status {args.output}`"
    )
    return 0
