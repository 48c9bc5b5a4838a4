"""Experiment files: the sweep's points, and bad files named by line and field."""

import subprocess
import sys
from pathlib import Path

import pytest

from p4aqm.experiments.spec import ExperimentError, load_experiment

REPO = Path(__file__).resolve().parents[2]
SMOKE = REPO / "experiments" / "examples" / "smoke.yaml"
CALIBRATION = REPO / "calibrations" / "web-tcpeval.yaml"
P4AQM = str(Path(sys.executable).parent / "p4aqm")

GOOD = f"""name: t
topology: {{bottleneck_rate_bps: 10000000}}
traffic:
  web: {{load_percent: 50, calibration: {CALIBRATION}}}
  cbr: [{{client: c1, server: s2, rate_bps: 210000}}]
duration_s: 30
warmup_s: 5
repetitions: 2
sweep:
  topology.right_to_left_depth_pkts: [50, 100]
  traffic.web.load_percent: [50, 90]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "exp.yaml"
    path.write_text(text)
    return path


def test_sweep_is_a_grid_of_named_points_with_repetitions(tmp_path: Path) -> None:
    experiment, points = load_experiment(write(tmp_path, GOOD))
    assert len(points) == 2 * 2 * 2
    assert len({p.name for p in points}) == 8
    first = points[0]
    assert first.name == "p01_right_to_left_depth_pkts-50_load_percent-50_rep1"
    assert first.topology.right_to_left_depth_pkts == 50
    assert {p.experiment.seed for p in points} == {1, 2}  # a repetition is another seed
    users = {p.overrides["traffic.web.load_percent"]: p.web_users for p in points}
    assert users[90] > users[50] > 0


def test_point_names_tell_swept_mappings_apart_by_every_value(tmp_path: Path) -> None:
    buffers = """  topology.host_tcp:
    - {congestion_control: reno, rmem_bytes: [4096, 32768, 32768]}
    - {congestion_control: reno, rmem_bytes: [4096, 65536, 65536]}
"""
    text = GOOD.replace("repetitions: 2\n", "").split("sweep:")[0] + "sweep:\n" + buffers
    _, points = load_experiment(write(tmp_path, text))
    names = [p.name.split("_", 1)[1] for p in points]  # without the index
    assert names == ["host_tcp-reno_4096-32768-32768", "host_tcp-reno_4096-65536-65536"]


@pytest.mark.parametrize(
    ("change", "line", "named"),
    [
        (("duration_s: 30", "duration_s: 30\nbogus: 1"), 7, "bogus"),
        (("duration_s: 30", "duration_s: thirty"), 6, "duration_s"),
        (("duration_s: 30", "duration_s: -3"), 6, "duration_s"),
        ((f", calibration: {CALIBRATION}", ""), 4, "calibration"),
        (("client: c1", "client: c7"), 5, "no host 'c7'"),
        (("bottleneck_rate_bps: 10000000", "bottleneck_rate_bps: -1"), 2, "bottleneck_rate_bps"),
        (("[50, 90]", "[50, 900]"), 11, "load_percent"),
        (("warmup_s: 5", "warmup_s: 5\nsample_period_ms: 60000"), 8, "sample_period_ms"),
        (("topology.right_to_left", "topology.nothing.right_to_left"), 10, "nothing"),
        (("warmup_s: 5", "warmup_s: 5\ntcp_trace: {hosts: [s1, s9]}"), 8, "no host 's9'"),
        (("warmup_s: 5", "warmup_s: 5\ntcp_trace: {hosts: [s1], ports: [0]}"), 8, "port 0"),
        (("warmup_s: 5", "warmup_s: 5\ntcp_trace: {hosts: []}"), 8, "tcp_trace.hosts"),
        (("10000000}", "10000000, host_tcp: {rto_min_ms: 0}}"), 2, "host_tcp.rto_min_ms"),
    ],
)
def test_bad_files_name_line_and_field(
    tmp_path: Path, change: tuple[str, str], line: int, named: str
) -> None:
    path = write(tmp_path, GOOD.replace(*change, 1))
    with pytest.raises(ExperimentError) as error:
        load_experiment(path)
    message = str(error.value)
    assert f"{path}:{line}" in message and named in message, message


def test_a_chained_yaml_merge_is_refused_by_line(tmp_path: Path) -> None:
    """PyYAML 6 loses `k: p` in the last item here, so the file must not rely on it."""
    chained = "x0: &c {k: c, m: 1}\nx1: &p\n  <<: *c\n  k: p\nx2:\n  <<: *p\n  m: 3\n"
    path = write(tmp_path, GOOD + chained)
    with pytest.raises(ExperimentError, match=f"{path}:17: a merge"):
        load_experiment(path)


def test_a_bad_file_starts_nothing(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("duration_s: 30", "duration_s: 0"))
    run = subprocess.run(
        [P4AQM, "run", str(path), "-o", str(tmp_path / "out")], capture_output=True, text=True
    )
    assert run.returncode == 2 and "duration_s" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "out").exists()


def test_dry_run_prints_the_points_and_their_time(tmp_path: Path) -> None:
    run = subprocess.run(
        [P4AQM, "run", str(SMOKE), "-o", str(tmp_path / "out"), "--dry-run"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert "p01_load_percent-50" in run.stdout and "p02_load_percent-80" in run.stdout
    assert "2 of 2 points to run" in run.stdout
    assert not (tmp_path / "out").exists()


def test_dry_run_needs_no_results_folder_and_a_run_does() -> None:
    dry = subprocess.run([P4AQM, "run", str(SMOKE), "--dry-run"], capture_output=True, text=True)
    assert dry.returncode == 0 and "2 of 2 points to run" in dry.stdout, dry.stderr
    run = subprocess.run([P4AQM, "run", str(SMOKE)], capture_output=True, text=True)
    assert run.returncode == 2 and "-o/--output" in run.stderr and "Traceback" not in run.stderr


@pytest.mark.parametrize("jobs", ["0", "two", "-1"])
def test_a_bad_jobs_count_is_refused_by_name(jobs: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run = subprocess.run(
        [P4AQM, "run", str(SMOKE), "-o", str(out), "--jobs", jobs], capture_output=True, text=True
    )
    assert run.returncode == 2 and "--jobs" in run.stderr and "Traceback" not in run.stderr
    assert not out.exists()


def test_jobs_are_refused_with_point_and_slurm(tmp_path: Path) -> None:
    for extra in (["--point", "1"], ["--backend", "slurm"]):
        command = [P4AQM, "run", str(SMOKE), "-o", str(tmp_path), "--jobs", "2", *extra]
        run = subprocess.run(command, capture_output=True, text=True)
        assert run.returncode == 2 and "--jobs runs points at once here" in run.stderr


PROFILES = """profiles:
  quick: {duration_s: 10, sweep: {traffic.web.load_percent: [90]}}
  broken: {warmup_s: -1}
"""


def test_a_profile_changes_fields_and_the_sweep(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD + PROFILES)
    _, full = load_experiment(path)
    experiment, quick = load_experiment(path, "quick")
    assert len(full) == 8 and len(quick) == 1 * 2  # the profile's sweep replaces the file's
    assert experiment.duration_s == 10 and {p.experiment.duration_s for p in quick} == {10}


def test_profile_errors_name_the_profile(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD + PROFILES)
    with pytest.raises(
        ExperimentError, match="--profile nope: the file's profiles are quick, broken"
    ):
        load_experiment(path, "nope")
    with pytest.raises(ExperimentError, match=rf"{path}:14: warmup_s"):
        load_experiment(path, "broken")


def test_a_reference_runs_beside_the_grid_at_every_value_it_leaves(tmp_path: Path) -> None:
    """An uncongested best case at each load: the faster bottleneck keeps the congested
    load's users (load_rate_bps), and its points show its label, not its fields."""
    text = (
        GOOD
        + """references:
  - label: uncongested
    set:
      topology.bottleneck_rate_bps: 100000000
      traffic.web.load_rate_bps: 10000000
      topology.right_to_left_depth_pkts: 100
"""
    )
    _, points = load_experiment(write(tmp_path, text))
    grid, references = points[:8], points[8:]
    assert len(references) == 2  # one per load, one repetition each
    assert [p.overrides for p in references] == [
        {"traffic.web.load_percent": 50, "reference": "uncongested"},
        {"traffic.web.load_percent": 90, "reference": "uncongested"},
    ]
    assert references[0].name == "p09_load_percent-50_reference-uncongested"
    assert references[0].topology.bottleneck_rate_bps == 100_000_000
    # The users of 50 % of 10 Mbit/s, as the grid's points at that load.
    at_50 = {p.web_users for p in grid if p.overrides["traffic.web.load_percent"] == 50}
    assert at_50 == {references[0].web_users}


def test_a_bad_reference_is_named(tmp_path: Path) -> None:
    text = (
        GOOD
        + """references:
  - label: fast
    set: {topology.no_such_field: 1}
"""
    )
    with pytest.raises(ExperimentError, match=r"exp.yaml:\d+: .*no_such_field"):
        load_experiment(write(tmp_path, text))
