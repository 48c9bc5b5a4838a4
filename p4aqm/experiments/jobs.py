"""`p4aqm run --jobs N|auto`: several points at once on this machine.

Each point runs as `p4aqm run EXP -o RESULTS --point K` in a sandbox of its own (a
network namespace holding its whole topology, and a cgroup: p4aqm/topology/sandbox.py),
so the points' interfaces, addresses and gRPC ports never meet. The child writes its
point as a sequential run does (RESULTS/.inflight/NAME, renamed to RESULTS/points/NAME
with its manifest), and its output goes to the point's run.log. A child that dies
without its manifest (killed) is recorded here as a failed point, its partial files
dropped; its sandbox is removed with whatever still ran in it. Every child gets SIGKILL
from the kernel if this process dies, and `p4aqm clean` removes their sandboxes.

`--jobs auto` starts points while, by the CPU the running points measurably use (a
point not yet settled counted at the most a finished point of the run used), one more
fits in AUTO_CPU_SHARE of the machine's cores and the machine is less busy than that.
A point that ends outside its fidelity bounds (p4aqm/experiments/fidelity.py) with others
beside it lowers the number that may run at once (the cap); after RECOVER_AFTER_POINTS
points in a row end within their bounds at the cap, it is raised by one again, and each
raise that a point outside its bounds then takes back doubles that count. One outside its
bounds alone lowers nothing (the machine, not the points beside it, was at fault: this
VM's host slows it in spells), but a raise waits for a new series of points within bounds.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from p4aqm.experiments.fidelity import read_fidelity
from p4aqm.experiments.manifest import point_manifest
from p4aqm.experiments.spec import Point
from p4aqm.topology.cgroup import CgroupError
from p4aqm.topology.host_tcp import allow_congestion_controls
from p4aqm.topology.sandbox import Sandbox

# --jobs auto keeps the points' measured CPU, and the machine's busy share, under this
# share of its cores: the rest is headroom for bursts and for the kernel's own packet
# work that no cgroup is charged with.
AUTO_CPU_SHARE = 0.75
# A point's CPU is estimated over the last ESTIMATE_WINDOW_S, once its measurement has
# run that long: after its bring-up (at most BRING_UP_S) and its warm-up. Bring-up costs
# more than running, and a warm-up less, since web users and load ramp up in it: the
# Scharf rerun of 2026-11-29 estimated its points 15 s after their start, inside a 60 s
# warm-up, at about a quarter of what they used later, and started seven at once.
BRING_UP_S = 10.0
ESTIMATE_WINDOW_S = 5.0
POLL_S = 0.5
# Points in a row within their bounds at the cap before it is raised by one: Christiansen
# et al.'s quick run of 2026-11-30 had a point alone outside its bounds in a spell of the
# host's, and a cap lowered for good then ran its 120 remaining points one at a time.
RECOVER_AFTER_POINTS = 10
CHILD_STOP_S = 30.0  # after SIGTERM, a child tears its topology down within this


@dataclass
class Child:
    point: Point
    slot: int
    sandbox: Sandbox
    process: subprocess.Popen[bytes]
    log: Path
    started_ns: int
    started_mono: float = field(default_factory=time.monotonic)
    usage: list[tuple[float, int]] = field(default_factory=list)  # (monotonic s, CPU µs)
    settle_s: float = BRING_UP_S + ESTIMATE_WINDOW_S  # settle_after(point) for a real point

    def sample(self) -> None:
        if self.sandbox.cgroup.exists():
            self.usage.append((time.monotonic(), self.sandbox.cgroup.usage_us()))

    def cores(self) -> float | None:
        """The point's CPU over the last ESTIMATE_WINDOW_S, once settled; None before."""
        now = time.monotonic()
        if now - self.started_mono < self.settle_s or not self.usage:
            return None
        recent = [(t, u) for t, u in self.usage if now - t <= ESTIMATE_WINDOW_S + POLL_S]
        if len(recent) < 2 or recent[-1][0] - recent[0][0] < ESTIMATE_WINDOW_S / 2:
            return None
        (t0, u0), (t1, u1) = recent[0], recent[-1]
        return (u1 - u0) / 1e6 / (t1 - t0)


def settle_after(point: Point) -> float:
    """How long after its start a point's CPU is estimated: ESTIMATE_WINDOW_S into its
    measurement."""
    return BRING_UP_S + point.experiment.warmup_s + ESTIMATE_WINDOW_S


class MachineBusy:
    """The machine's CPU busy share between two calls of `share()`."""

    def __init__(self) -> None:
        self.last = self._ticks()

    @staticmethod
    def _ticks() -> tuple[int, int]:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        return sum(fields) - fields[3] - fields[4], sum(fields)

    def share(self) -> float:
        busy, total = self._ticks()
        (busy0, total0), self.last = self.last, (busy, total)
        return (busy - busy0) / (total - total0) if total > total0 else 0.0


class AutoJobs:
    """How many points may run at once under --jobs auto."""

    def __init__(self, cores: int) -> None:
        self.cores = cores
        self.cap: int | None = None  # lowered by a point outside its bounds, see above
        self.recover_after = RECOVER_AFTER_POINTS
        self.within_in_a_row = 0  # points ended within their bounds at the cap
        self.raised = False  # the cap was last raised, not lowered
        self.busy = MachineBusy()
        self.last_busy = 0.0
        # The most CPU a finished point of this run used over its window: the cost of a
        # running point not yet settled. Points of one sweep cost alike, and a point
        # shorter than its settling time (Christiansen et al.'s quick points: 38 s
        # against 25) would otherwise never have a second beside it. Not a settled
        # running point's cost: counting by it, the demo bench started two points in one
        # poll, three ran at 0.56 of a core each, two ended outside their bounds and the
        # run took 391 s against 295 (docs/bench/2026-11-30-jobs-auto-most-seen.txt).
        self.finished_cores: float | None = None

    def allows(self, children: list[Child]) -> bool:
        if not children:
            return True
        estimates = [child.cores() for child in children]
        if None in estimates and self.finished_cores is None:
            return False  # wait until every running point's cost is known
        if self.cap is not None and len(children) >= self.cap:
            return False
        per_point = max(self.finished_cores if c is None else c for c in estimates)
        budget = AUTO_CPU_SHARE * self.cores
        return (len(children) + 1) * per_point <= budget and self.last_busy <= AUTO_CPU_SHARE

    def point_ended(
        self, outside_bounds: list[str], running_then: int, cores: float | None = None
    ) -> None:
        if cores is not None:
            self.finished_cores = max(cores, self.finished_cores or 0.0)
        if outside_bounds:
            self.within_in_a_row = 0
            if running_then > 1:
                if self.raised:
                    self.recover_after *= 2
                self.cap = max(1, min(self.cap or running_then, running_then - 1))
                self.raised = False
            return
        if self.cap is None or running_then < self.cap:
            return
        self.within_in_a_row += 1
        if self.within_in_a_row >= self.recover_after:
            self.cap += 1
            self.within_in_a_row = 0
            self.raised = True

    def tick(self) -> None:
        self.last_busy = self.busy.share()


def child_command(experiment: Path, results: Path, profile: str | None, index: int) -> list[str]:
    p4aqm = str(Path(sys.executable).parent / "p4aqm")
    command = [p4aqm, "run", str(experiment), "-o", str(results), "--point", str(index)]
    return command + (["--profile", profile] if profile else [])


def record_killed(child: Child, results: Path, source: Path) -> None:
    """A child that died without its manifest: its point is recorded as failed."""
    # A fresh folder: the child's partial one may not be removable whole.
    shutil.rmtree(results / ".inflight" / child.point.name, ignore_errors=True)
    (results / ".inflight").mkdir(parents=True, exist_ok=True)
    inflight = Path(tempfile.mkdtemp(prefix=f"{child.point.name}.", dir=results / ".inflight"))
    code = child.process.returncode
    why = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
    error = f"the point's process ended without a result ({why}); see run.log"
    manifest = point_manifest(
        child.point, source, child.started_ns, time.time_ns(), "failed", error, {}
    )
    (inflight / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str) + "\n")
    final = results / "points" / child.point.name
    final.parent.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(final, ignore_errors=True)
    inflight.replace(final)


def outcome_of(child: Child, results: Path, source: Path) -> tuple[str, list[str], float | None]:
    """After a child exits: its point's status, the fidelity bounds it ran outside and
    the CPU (cores) its processes used over its window, if measured."""
    folder = results / "points" / child.point.name
    try:
        manifest = json.loads((folder / "manifest.json").read_text())
        fresh = manifest.get("started_ns", 0) >= child.started_ns
    except (OSError, ValueError):
        fresh = False
    if not fresh:
        record_killed(child, results, source)
        manifest = json.loads((folder / "manifest.json").read_text())
    if child.log.exists():
        child.log.replace(folder / "run.log")
    fidelity = read_fidelity(folder) or {}
    status = manifest["status"]
    error = manifest.get("error")
    cores = (fidelity.get("cpu") or {}).get("point_cpu_cores")
    shown = status if not error else f"{status}: {error}"
    return shown, fidelity.get("outside_bounds", []), cores


def cpu_count() -> int:
    return len(os.sched_getaffinity(0))


@dataclass
class ConcurrentRun:
    """Runs `todo` with at most `jobs` points at once (None: --jobs auto)."""

    experiment: Path
    results: Path
    profile: str | None
    jobs: int | None
    console: Console = field(default_factory=Console)
    children: list[Child] = field(default_factory=list)
    failed: int = 0
    done: int = 0

    def run(self, todo: list[Point]) -> int:
        """0 if every point is ok, 1 if one failed, 2 if a sandbox cannot be made, 130
        if interrupted."""
        auto = AutoJobs(cpu_count()) if self.jobs is None else None
        # Here, in the root network namespace: a point's sandbox can only read the list.
        allow_congestion_controls(
            sorted({cc for p in todo for cc in p.topology.congestion_controls()})
        )
        waiting = list(todo)
        free_slots = list(range(len(todo), 0, -1))
        try:
            while waiting or self.children:
                if auto is not None:
                    auto.tick()
                for child in self.children:
                    child.sample()
                if waiting and self._may_start(auto):
                    self._start(waiting.pop(0), free_slots.pop())
                    continue
                time.sleep(POLL_S)
                for child in [c for c in self.children if c.process.poll() is not None]:
                    self._finish(child, auto)
                    free_slots.append(child.slot)
        except CgroupError as exc:
            self._stop_children()
            print(f"p4aqm run: error: --jobs: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            self._stop_children()
            self.console.print(
                f"interrupted: {self.done} of {len(todo)} points run this time"
                f" ({self.failed} failed); the points in flight are lost. Run the same"
                " command again to continue."
            )
            return 130
        return 1 if self.failed else 0

    def _may_start(self, auto: AutoJobs | None) -> bool:
        if auto is None:
            assert self.jobs is not None
            return len(self.children) < self.jobs
        return auto.allows(self.children)

    def _start(self, point: Point, slot: int) -> None:
        sandbox = Sandbox(slot).create()
        log = self.results / ".inflight" / f"{point.name}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        command = child_command(self.experiment, self.results, self.profile, point.index)
        with log.open("wb") as out:
            process = subprocess.Popen(
                sandbox.command(command),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # Ctrl-C reaches this process only; it stops them
            )
        child = Child(point, slot, sandbox, process, log, time.time_ns())
        child.settle_s = settle_after(point)
        self.children.append(child)
        self.console.print(
            f"{point.name}: started in sandbox {sandbox.name} ({len(self.children)} running)"
        )

    def _finish(self, child: Child, auto: AutoJobs | None) -> None:
        running_then = len(self.children)
        self.children.remove(child)
        try:
            for line in child.sandbox.remove():
                if line.startswith("process"):  # the namespace itself goes every time
                    self.console.print(f"  {child.point.name}: left behind, killed: {line}")
        except (CgroupError, OSError) as exc:  # the other points go on; `p4aqm clean` ends it
            self.console.print(f"  {child.point.name}: sandbox not removed: {exc}", markup=False)
        try:
            status, outside, cores = outcome_of(child, self.results, self.experiment)
        except OSError as exc:
            status, outside, cores = f"failed: the point could not be recorded: {exc}", [], None
        self.done += 1
        self.failed += not status.startswith("ok")
        marked = f" [outside fidelity bounds: {'; '.join(outside)}]" if outside else ""
        # Not rich markup: "[...]" and error texts would be taken for tags and vanish.
        self.console.print(f"{child.point.name}: {status}{marked}", markup=False)
        if auto is not None:
            auto.point_ended(outside, running_then, cores if status.startswith("ok") else None)

    def _stop_children(self) -> None:
        """SIGTERM (a child tears its topology down as on Ctrl-C), then the sandboxes."""
        for child in self.children:
            if child.process.poll() is None:
                child.process.terminate()
        deadline = time.monotonic() + CHILD_STOP_S
        for child in self.children:
            try:
                child.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.process.kill()
                child.process.wait()
            child.sandbox.remove()
        self.children = []
