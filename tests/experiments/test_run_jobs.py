"""`p4aqm run --jobs`: points at once, each in a sandbox of its own.

Two points of one experiment run at the same time with the same interface names,
addresses and gRPC ports, each in its own namespace; a point killed alone is recorded as
failed while the other completes; `p4aqm clean` after SIGKILL of the whole run leaves no
namespace, cgroup, record, interface or process behind.
"""

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

from p4aqm.topology.cgroup import Cgroup, p4aqm_root  # noqa: E402
from p4aqm.topology.netlab import list_namespaces  # noqa: E402
from p4aqm.topology.registry import records  # noqa: E402
from p4aqm.topology.sandbox import SANDBOX_PREFIX  # noqa: E402

P4AQM = str(Path(sys.executable).parent / "p4aqm")

EXPERIMENT = """name: jobs
topology:
  build_dir: {build}
  bottleneck_rate_bps: 10000000
traffic:
  cbr: [{{client: c1, server: s1, rate_bps: 500000}}]
duration_s: {duration_s}
warmup_s: 1
sweep:
  traffic.cbr.0.rate_bps: [500000, 2000000]
"""


def sandboxes(owner: int) -> list[str]:
    return [n for n in list_namespaces() if n.startswith(f"{SANDBOX_PREFIX}{owner}-")]


def interfaces(netns: str | None = None) -> list[str]:
    where = ["-n", netns] if netns else []
    out = subprocess.run(["ip", *where, "-br", "link"], capture_output=True, text=True).stdout
    return [line.split()[0].split("@")[0] for line in out.splitlines()]


def start(tmp_path: Path, build: Path, duration_s: int) -> tuple[subprocess.Popen[str], Path]:
    experiment = tmp_path / "jobs.yaml"
    experiment.write_text(EXPERIMENT.format(build=build, duration_s=duration_s))
    results = tmp_path / "results"
    command = [P4AQM, "run", str(experiment), "-o", str(results), "--jobs", "2"]
    run = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return run, results


def wait_for_both_routers(run: subprocess.Popen[str]) -> list[str]:
    """The two sandboxes, once each holds its routers' bottleneck interfaces."""
    deadline = time.monotonic() + 120
    while True:
        assert run.poll() is None, run.communicate()[0]
        assert time.monotonic() < deadline, "the two points did not come up"
        found = sandboxes(run.pid)
        if len(found) == 2 and all("p4runr2-eth100" in interfaces(n) for n in found):
            return found
        time.sleep(0.2)


def child_of_point(run: subprocess.Popen[str], index: int) -> int:
    """The pid of the `p4aqm run --point INDEX` that `run` started."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            ppid = (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
        except OSError:
            continue
        point = argv[argv.index(b"--point") + 1] if b"--point" in argv else b""
        if point == str(index).encode() and ppid == str(run.pid):
            return int(entry.name)
    raise AssertionError(f"no child runs point {index}")


def running(pid: int) -> bool:
    """Alive and not a zombie (a killed process whose new parent has yet to reap it)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def manifest(results: Path, index: int, out: str) -> dict:
    """Point INDEX's manifest; `out`, what the run printed, explains a missing one."""
    folders = list((results / "points").glob(f"p{index:02d}_*"))
    assert len(folders) == 1, f"point {index} has {len(folders)} folders; the run printed:\n{out}"
    return json.loads((folders[0] / "manifest.json").read_text())


def test_two_points_run_at_once_each_in_its_own_namespace(
    l3_program: CompiledProgram, tmp_path: Path
) -> None:
    run, results = start(tmp_path, l3_program.json_path.parent, duration_s=8)
    found = wait_for_both_routers(run)
    assert not [i for i in interfaces() if i.startswith("p4run")], "routers in the root namespace"
    out = run.communicate(timeout=180)[0]
    assert run.returncode == 0, out
    first, second = manifest(results, 1, out), manifest(results, 2, out)
    assert first["status"] == second["status"] == "ok", (first["error"], second["error"])
    # The same names and addresses in both points: they never met.
    assert first["hosts"] == second["hosts"]
    assert first["started_ns"] < second["ended_ns"] and second["started_ns"] < first["ended_ns"]
    for index, rate_bps in ((1, 500_000), (2, 2_000_000)):
        folder = next((results / "points").glob(f"p{index:02d}_*"))
        summary = json.loads((folder / "udp" / "cbr0.json").read_text())
        assert summary["rate_bps"] == rate_bps, summary
        fidelity = json.loads((folder / "fidelity.json").read_text())
        assert fidelity["cpu"]["point_cpu_cores"] > 0, fidelity
        assert (folder / "run.log").is_file()
    assert not any(n in list_namespaces() for n in found)
    assert not (results / ".inflight").exists()


def test_killing_one_point_leaves_the_other_whole(
    l3_program: CompiledProgram, tmp_path: Path
) -> None:
    run, results = start(tmp_path, l3_program.json_path.parent, duration_s=8)
    wait_for_both_routers(run)
    os.kill(child_of_point(run, 1), signal.SIGKILL)
    out = run.communicate(timeout=180)[0]
    assert run.returncode == 1, out
    killed, whole = manifest(results, 1, out), manifest(results, 2, out)
    assert killed["status"] == "failed" and "killed by signal 9" in killed["error"]
    assert whole["status"] == "ok", whole["error"]
    assert sandboxes(run.pid) == [] and not [r for r in records() if r.netns]


def test_clean_after_sigkill_of_a_jobs_run_leaves_nothing(
    l3_program: CompiledProgram, tmp_path: Path
) -> None:
    run, _ = start(tmp_path, l3_program.json_path.parent, duration_s=60)
    found = wait_for_both_routers(run)
    root = p4aqm_root()
    assert root is not None
    pids = [pid for name in found for pid in Cgroup(root / name).pids()]
    assert len(pids) > 10  # the points, their switches, host shells and generators
    run.send_signal(signal.SIGKILL)
    run.wait()
    cleaned = subprocess.run([P4AQM, "clean"], capture_output=True, text=True, timeout=60)
    assert cleaned.returncode == 0, cleaned.stderr
    assert not [n for n in list_namespaces() if n in found]
    assert not list(root.glob(f"{SANDBOX_PREFIX}{run.pid}-*"))
    assert not [r for r in records() if r.netns in found]
    assert not [i for i in interfaces() if i.startswith("p4run")]
    assert not [pid for pid in pids if running(pid)]


def test_a_sandbox_that_cannot_be_made_is_one_error_line(
    l3_program: CompiledProgram, tmp_path: Path
) -> None:
    experiment = tmp_path / "jobs.yaml"
    experiment.write_text(EXPERIMENT.format(build=l3_program.json_path.parent, duration_s=5))
    command = [P4AQM, "run", str(experiment), "-o", str(tmp_path / "r"), "--jobs", "2"]
    env = os.environ | {"P4AQM_CGROUP_ROOT": "/proc/no-such-dir/p4aqm"}  # mkdir must fail
    run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr.startswith("p4aqm run: error: --jobs: cannot make the cgroup")
    assert "Traceback" not in run.stderr + run.stdout
    assert not [n for n in list_namespaces() if n.startswith(SANDBOX_PREFIX)]
