"""A point's fidelity: its bounds, its page-start figures, the CPU a cgroup counts, how
--jobs auto decides, and the report's fidelity table and summary column."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from p4aqm.experiments import jobs
from p4aqm.experiments.fidelity import (
    CpuSample,
    Fidelity,
    FidelityBounds,
    cpu_figures,
    page_start_figures,
)
from p4aqm.experiments.spec import load_experiment
from p4aqm.report.cli import main as report_main
from p4aqm.topology import cgroup
from p4aqm.topology.cgroup import Cgroup, CgroupError, joined_cgroup, own_cgroup

ROUTER_OK = {
    "delivered_pkts": 1000,
    "lateness_p50_us": 4.0,
    "lateness_p99_us": 30.0,
    "lateness_max_us": 900.0,
    "monitor_overruns": 0,
    "monitor_missed": 0,
}
PAGES_OK = {"pages": 1000, "late_pages": 3, "late_threshold_ms": 100.0}
CPU_OK = {"point_cpu_cores": 0.3, "machine_busy_share": 0.5}
REPO = Path(__file__).resolve().parents[2]


def fidelity(**changes: object) -> Fidelity:
    figures: dict = {
        "bottleneck_rate_bps": 10_000_000,
        "routers": {"p4runr1": dict(ROUTER_OK), "p4runr2": dict(ROUTER_OK)},
        "pages": dict(PAGES_OK),
        "cpu": dict(CPU_OK),
        "monitor_periods": 10_000,
    }
    return Fidelity(**(figures | changes))  # type: ignore[arg-type]


def test_the_lateness_bound_is_a_share_of_a_full_frame_at_the_bottleneck_rate() -> None:
    bounds = FidelityBounds()
    assert bounds.lateness_p99_us(10_000_000) == pytest.approx(0.25 * 1514 * 8 / 10)
    assert bounds.lateness_p99_us(100_000_000) == pytest.approx(0.25 * 1514 * 8 / 100)


def test_figures_within_the_bounds_give_no_reason() -> None:
    assert fidelity().outside_bounds() == []
    assert fidelity().to_json()["outside_bounds"] == []


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"routers": {"r2": ROUTER_OK | {"lateness_p99_us": 303.0}}}, "r2: p99 departure lateness"),
        ({"routers": {"r2": ROUTER_OK | {"monitor_overruns": 2}}}, "r2: the monitor lost 2"),
        ({"routers": {"r1": ROUTER_OK | {"monitor_missed": 101}}}, "r1: the monitor missed 101"),
        ({"pages": PAGES_OK | {"late_pages": 11}}, "11 of 1000 page starts later than 100 ms"),
        ({"cpu": CPU_OK | {"machine_busy_share": 0.97}}, "machine 97.0% busy"),
    ],
)
def test_each_bound_crossed_is_named(changes: dict, reason: str) -> None:
    reasons = fidelity(**changes).outside_bounds()
    assert len(reasons) == 1 and reasons[0].startswith(reason), reasons


def test_page_starts_late_are_counted_from_the_clients_records(tmp_path: Path) -> None:
    late_ms = np.array([0.5, 1.0, np.nan, 150.0, 2.0, np.nan])  # NaN: embedded objects
    path = tmp_path / "c1.parquet"
    pq.write_table(pa.table({"start_late_ms": late_ms}), path)
    figures = page_start_figures([path], late_threshold_ms=100.0)
    assert figures["pages"] == 4 and figures["late_pages"] == 1
    assert figures["start_late_max_ms"] == 150.0
    assert figures["start_late_p50_ms"] == pytest.approx(np.percentile([0.5, 1, 150, 2], 50))
    assert page_start_figures([], 100.0) == {"pages": 0}


@pytest.mark.skipif(os.geteuid() != 0 or own_cgroup() is None, reason="needs root, cgroup v2")
def test_a_point_cgroup_counts_its_children_and_kills_what_outlives_it() -> None:
    burn = "import time\nend = time.process_time() + 0.4\nwhile time.process_time() < end: pass"
    before = own_cgroup()
    with joined_cgroup(f"test-{os.getpid()}") as group:
        assert group is not None and own_cgroup() == group.path
        start = CpuSample.now(group)
        subprocess.run([sys.executable, "-c", burn], check=True)
        figures = cpu_figures(start, CpuSample.now(group))
        sleeper = subprocess.Popen(["sleep", "60"])
    assert own_cgroup() == before
    assert sleeper.wait(timeout=10) == -9, "the leftover was not killed"
    assert not group.path.exists()
    assert figures["point_cpu_cores"] * figures["wall_s"] >= 0.35


@pytest.mark.skipif(os.geteuid() != 0 or own_cgroup() is None, reason="needs root, cgroup v2")
def test_a_cgroup_still_in_use_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    root = cgroup.p4aqm_root()
    assert root is not None
    group = Cgroup(root / f"test-busy-{os.getpid()}").create()
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        group.add(sleeper.pid)
        monkeypatch.setattr(cgroup, "REMOVE_WAIT_S", 0.2)
        with pytest.raises(CgroupError, match=f"cannot remove the cgroup {group.path}"):
            group.remove()
    finally:
        group.kill()
        sleeper.wait()
        group.remove()
    assert not group.path.exists()


class FakeChild:
    def __init__(self, cores: float | None) -> None:
        self._cores = cores

    def cores(self) -> float | None:
        return self._cores


def test_auto_jobs_fits_points_by_their_measured_cpu() -> None:
    auto = jobs.AutoJobs(cores=2)  # a budget of 1.5 cores
    assert auto.allows([])
    assert not auto.allows([FakeChild(None)]), "a point whose cost is not known yet"
    assert auto.allows([FakeChild(0.3)] * 4)  # a fifth: 1.5 cores
    assert not auto.allows([FakeChild(0.3)] * 5)
    assert not auto.allows([FakeChild(0.2), FakeChild(0.8)]), "the costliest point counts"
    auto.last_busy = 0.9
    assert not auto.allows([FakeChild(0.1)]), "the machine is busy with something else"


def test_an_unsettled_point_counts_at_the_most_a_finished_one_used() -> None:
    auto = jobs.AutoJobs(cores=2)  # a budget of 1.5 cores
    assert not auto.allows([FakeChild(None)]), "no point has finished: nothing known"
    auto.point_ended([], running_then=1, cores=0.45)
    auto.point_ended([], running_then=1, cores=0.3)
    assert auto.finished_cores == 0.45, "the costliest finished point"
    assert auto.allows([FakeChild(None), FakeChild(None)])  # a third: 1.35 cores
    assert not auto.allows([FakeChild(None)] * 3)
    assert not auto.allows([FakeChild(None), FakeChild(0.8)]), "a settled point's own cost"


def test_a_point_outside_its_bounds_with_others_lowers_the_cap() -> None:
    auto = jobs.AutoJobs(cores=2)
    auto.point_ended([], running_then=4)
    assert auto.cap is None
    auto.point_ended(["r2: p99 departure lateness 80 µs > 60 µs"], running_then=4)
    assert auto.cap == 3
    assert not auto.allows([FakeChild(0.1)] * 3)
    auto.point_ended(["machine 99% busy"], running_then=2)
    assert auto.cap == 1


def test_one_outside_its_bounds_alone_lowers_nothing_but_delays_a_raise() -> None:
    auto = jobs.AutoJobs(cores=2)
    auto.point_ended(["r1: p99 departure lateness 660 µs > 303 µs"], running_then=1)
    assert auto.cap is None, "nothing ran beside it: the machine was at fault"
    auto.point_ended(["r1: lateness"], running_then=2)
    for _ in range(jobs.RECOVER_AFTER_POINTS - 1):
        auto.point_ended([], running_then=1)
    auto.point_ended(["r1: lateness"], running_then=1)
    auto.point_ended([], running_then=1)
    assert auto.cap == 1, "the series within bounds starts again after one outside them"


def test_the_cap_rises_after_points_within_bounds_and_waits_longer_after_a_failed_raise() -> None:
    auto = jobs.AutoJobs(cores=2)
    auto.point_ended(["r1: lateness"], running_then=3)
    assert auto.cap == 2
    auto.point_ended([], running_then=1)  # below the cap (the run's last points): no test
    for _ in range(jobs.RECOVER_AFTER_POINTS - 1):
        auto.point_ended([], running_then=2)
    assert auto.cap == 2
    auto.point_ended([], running_then=2)
    assert auto.cap == 3, "ten in a row within bounds at the cap: one more is tried"
    auto.point_ended(["r1: lateness"], running_then=3)
    assert auto.cap == 2, "the raise is taken back"
    for _ in range(2 * jobs.RECOVER_AFTER_POINTS - 1):
        auto.point_ended([], running_then=2)
    assert auto.cap == 2, "after a failed raise, twice as many are needed"
    auto.point_ended([], running_then=2)
    assert auto.cap == 3


def test_a_child_s_cost_is_taken_once_its_measurement_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    child = jobs.Child(None, 1, None, None, Path("log"), 0, now[0])  # type: ignore[arg-type]
    # A point with a 60 s warm-up (Scharf's quick profile): its users ramp up in it, at a
    # tenth of a core, then a quarter. Nothing is estimated before its measurement runs.
    child.settle_s = jobs.BRING_UP_S + 60 + jobs.ESTIMATE_WINDOW_S
    used_us = 0
    for second in range(0, 91):
        now[0] = 1000.0 + second
        used_us += 100_000 if second <= jobs.BRING_UP_S + 60 else 250_000
        child.usage.append((now[0], used_us))
        if second < child.settle_s:
            assert child.cores() is None, second
    assert child.cores() == pytest.approx(0.25)


def test_a_point_settles_after_its_warm_up() -> None:
    _, points = load_experiment(REPO / "experiments" / "studies" / "scharf-iw10.yaml", "quick")
    assert jobs.settle_after(points[0]) == jobs.BRING_UP_S + 60 + jobs.ESTIMATE_WINDOW_S


def test_the_report_marks_points_outside_their_bounds(tmp_path: Path) -> None:
    from test_report import make_results

    results = make_results(tmp_path / "synthetic", points=3)
    points = sorted(p for p in (results / "points").iterdir())
    outside = fidelity(cpu=CPU_OK | {"machine_busy_share": 0.99}).to_json()
    (points[0] / "fidelity.json").write_text(json.dumps(fidelity().to_json()))
    (points[1] / "fidelity.json").write_text(json.dumps(outside))
    out = tmp_path / "out"
    assert report_main([str(results), "-o", str(out)]) == 0
    table = pd.read_csv(out / "fidelity.csv").set_index("point")
    assert table.loc[points[0].name, "verdict"] == "within bounds"
    assert table.loc[points[1].name, "verdict"].startswith("OUTSIDE BOUNDS: machine 99.0% busy")
    assert table.loc[points[2].name, "verdict"] == "not measured"
    assert table.loc[points[0].name, "lateness_p99_us"] == ROUTER_OK["lateness_p99_us"]
    summary = pd.read_csv(out / "summary.csv").set_index("point")
    assert summary.loc[points[1].name, "fidelity"] == "OUTSIDE BOUNDS"
    assert "OUTSIDE BOUNDS: machine 99.0% busy" in (out / "index.html").read_text()


class FakeSandbox:
    def remove(self) -> list[str]:
        return ["namespace p4aqm-j1-1"]


def test_a_finished_point_outside_its_bounds_is_said_with_its_reasons(tmp_path: Path) -> None:
    from rich.console import Console

    smoke = REPO / "experiments" / "examples" / "smoke.yaml"
    point = load_experiment(smoke)[1][0]
    folder = tmp_path / "points" / point.name
    folder.mkdir(parents=True)
    started_ns = time.time_ns()
    manifest = {"status": "ok", "error": None, "started_ns": started_ns + 1}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    outside = fidelity(cpu=CPU_OK | {"machine_busy_share": 0.99})
    (folder / "fidelity.json").write_text(json.dumps(outside.to_json()))
    process = subprocess.Popen(["true"])
    process.wait()
    child = jobs.Child(point, 1, FakeSandbox(), process, tmp_path / "x.log", started_ns)  # type: ignore[arg-type]
    beside = jobs.Child(point, 2, FakeSandbox(), process, tmp_path / "y.log", started_ns)  # type: ignore[arg-type]
    console = Console(record=True, width=300)
    run = jobs.ConcurrentRun(smoke, tmp_path, None, 2, console, [child, beside])
    auto = jobs.AutoJobs(cores=2)
    run._finish(child, auto)
    said = console.export_text()
    assert f"{point.name}: ok [outside fidelity bounds: machine 99.0% busy" in said, said
    assert auto.cap == 1 and run.done == 1 and run.failed == 0, "it ran with one beside it"
    assert run.children == [beside]
    assert auto.finished_cores == CPU_OK["point_cpu_cores"], "its cost, for the next points"


class StuckSandbox:
    name = "p4aqm-j1-1"

    def remove(self) -> list[str]:
        raise CgroupError("cannot remove the cgroup /sys/fs/cgroup/p4aqm/p4aqm-j1-1: busy")


def test_a_killed_point_is_recorded_even_if_its_sandbox_cannot_be_removed(
    tmp_path: Path,
) -> None:
    from rich.console import Console

    smoke = REPO / "experiments" / "examples" / "smoke.yaml"
    point = load_experiment(smoke)[1][0]
    partial = tmp_path / ".inflight" / point.name
    partial.mkdir(parents=True)
    (partial / "queue.parquet").write_bytes(b"half")  # the killed child's partial files
    process = subprocess.Popen(["sh", "-c", "kill -9 $$"])
    process.wait()
    child = jobs.Child(point, 1, StuckSandbox(), process, tmp_path / "x.log", time.time_ns())  # type: ignore[arg-type]
    console = Console(record=True, width=300)
    run = jobs.ConcurrentRun(smoke, tmp_path, None, 2, console, [child])
    run._finish(child, None)
    said = console.export_text()
    assert "sandbox not removed: cannot remove the cgroup" in said, said
    manifest = json.loads((tmp_path / "points" / point.name / "manifest.json").read_text())
    assert manifest["status"] == "failed" and "killed by signal 9" in manifest["error"]
    assert not (tmp_path / "points" / point.name / "queue.parquet").exists()
    assert run.failed == 1 and run.children == []
