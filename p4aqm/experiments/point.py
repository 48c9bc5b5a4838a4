"""One point of an experiment: bring the topology up, start the monitor, the servers and
the traffic, measure, stop, and leave every file in the point's folder.

Files of a point (experiments/README.md):
    topology/            switch logs, the topology's manifest (with each router's config)
    monitor-ROUTER.parquet   the queue monitor's samples of each AQM router
    web/HOST.parquet     per-request (clients) and per-connection (servers) records
    udp/FLOW.parquet     per-packet records of each CBR flow and blast, FLOW.json its
                         sender's summary
    tcp/HOST.parquet     per-flow TCP state over time of each traced host (tcp_trace)
    bulk/flowsI-END.parquet  per interval and flow, what the bulk flows of group I moved,
                         from each END (sender, receiver; traffic.bulk)
    throughput.csv       per second and direction: bottleneck bytes, bit/s, utilisation
    drops.json           the bottleneck ports' counters and queue, from the switches
    fidelity.json        how faithful the emulation was (p4aqm/experiments/fidelity.py)

The routers are controlled in this process, through the dumbbell's router handles:
the monitor streams into its file on a thread of its own, and the live figures read
the bottleneck over the same session every second.
"""

import csv
import dataclasses
import json
import select
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from p4aqm.controller.emulation import EmulationFidelity
from p4aqm.controller.recording import MonitorRecording
from p4aqm.experiments import launch
from p4aqm.experiments.fidelity import CpuSample, Fidelity, cpu_figures, page_start_figures
from p4aqm.experiments.spec import BulkTraffic, Point
from p4aqm.schema import Column, LeafName, field_name
from p4aqm.topology import Dumbbell
from p4aqm.topology.cgroup import Cgroup
from p4aqm.topology.dumbbell import BOTTLENECK_PORT, LEFT, RIGHT
from p4aqm.tuning.bpf import Tuner, TuningError

START_DELAY_S = 1.0  # between starting the receivers and the senders' epoch
DIRECTIONS = {LEFT: "client_to_server", RIGHT: "server_to_client"}
ROUTER_NAMES = {LEFT: "r1", RIGHT: "r2"}
# After the window, the senders get this long to end their tests and write their
# reports; an error after it.
SENDERS_GRACE_S = 60.0
# How long the bulk flows' ends may take to start (an error naming the end after it).
BULK_READY_S = 120.0

Progress = Callable[[dict[str, float]], None]


def _counter(interface: str, name: str) -> int:
    return int(Path(f"/sys/class/net/{interface}/statistics/{name}").read_text())


class PointRun:
    def __init__(self, point: Point, out: Path, cgroup: Cgroup | None = None) -> None:
        self.point = point
        self.out = out
        self.cgroup = cgroup  # holds this process and all the point starts, if given
        self.processes: dict[str, subprocess.Popen] = {}
        self.senders: dict[str, subprocess.Popen] = {}
        self.recordings: dict[str, MonitorRecording] = {}
        self.tuner: Tuner | None = None
        # Per tuning rule: connections tuned, options refused, the congestion control built
        # for its wadai and wadmd.
        self.tuned: dict[str, dict[str, int | str]] = {}

    @property
    def total_s(self) -> float:
        return self.point.experiment.warmup_s + self.point.experiment.duration_s

    def run(self, progress: Progress) -> dict[str, Any]:
        spec = dataclasses.replace(
            self.point.topology, run_dir=self.out / "topology", name_prefix="p4run"
        )
        with Dumbbell(spec) as net:
            started_ns = time.time_ns()
            try:
                self._start_tuning()
                self._start_monitors(net)
                self._start_tracers(net)
                bulk_ends = self._start_bulk(net)
                epoch_ns = time.time_ns() + int(START_DELAY_S * 1e9)
                _tell_epoch(bulk_ends, epoch_ns)
                self._start_receivers(net)
                time.sleep(max(0.0, (epoch_ns - time.time_ns()) / 1e9))
                routers = [r.process.pid for r in net.routers if r.process is not None]
                cpu_start = CpuSample.now(self.cgroup, routers)
                emulation_start = {side: net.router(side).emulation() for side in ROUTER_NAMES}
                self._start_senders(net, epoch_ns)
                window = self._measure(net, epoch_ns, progress)
                cpu = cpu_figures(cpu_start, CpuSample.now(self.cgroup, routers))
                emulation = {
                    side: net.router(side).emulation().since(start)
                    for side, start in emulation_start.items()
                }
                self._wait_senders(timeout_s=SENDERS_GRACE_S)
            finally:
                self._stop_all()
            fidelity = self._fidelity(net, emulation, cpu)
            drops = {
                f"{spec.name_prefix}{name}": dataclasses.asdict(
                    net.router(side).port_state(BOTTLENECK_PORT)
                )
                for side, name in ROUTER_NAMES.items()
            }
            (self.out / "drops.json").write_text(json.dumps(drops, indent=2))
            topology_manifest = net.manifest
        return {
            "epoch_ns": epoch_ns,
            "started_ns": started_ns,
            "window": window,
            "web_users": self.point.web_users,
            "tuned": self.tuned,
            "topology": topology_manifest,
            "fidelity": {"outside_bounds": fidelity.outside_bounds()},
            "seeds": self._seeds(net),
        }

    def _seeds(self, net: Dumbbell) -> dict[str, Any]:
        """Every seed the point's random draws came from: the repetition's, and each web
        client process's (its users' think times, pages and sizes, start times)."""
        seed = self.point.experiment.seed
        web = self.point.experiment.traffic.web
        hosts = [h for c, _ in launch.web_sides(net, web is not None and web.two_way) for h in c]
        clients = {name: launch.client_seed(seed, k) for k, name in enumerate(hosts)}
        return {"experiment": seed, "web_clients": clients}

    def _fidelity(
        self, net: Dumbbell, emulations: dict[int, EmulationFidelity], cpu: dict[str, Any]
    ) -> Fidelity:
        """The point's fidelity figures over its traffic period, written to its
        fidelity.json."""
        experiment = self.point.experiment
        routers = {}
        for side, name in ROUTER_NAMES.items():
            emulation = emulations[side]
            routers[f"{net.spec.name_prefix}{name}"] = {
                "delivered_pkts": emulation.departures,
                "lateness_p50_us": emulation.lateness_p50_ns / 1e3,
                "lateness_p99_us": emulation.lateness_p99_ns / 1e3,
                "lateness_max_us": emulation.lateness_max_ns / 1e3,
                "monitor_overruns": emulation.monitor_overruns,
                "monitor_missed": emulation.monitor_missed,
            }
        web = experiment.traffic.web
        threshold_ms = web.params.late_threshold_ms if web is not None else 0.0
        records = (self.out / "web").glob("*.parquet")
        clients = [path for path in records if not path.stem.endswith("-server")]
        pages = page_start_figures(sorted(clients), threshold_ms)
        fidelity = Fidelity(
            bottleneck_rate_bps=net.spec.bottleneck_rate_bps,
            routers=routers,
            pages=pages,
            cpu=cpu,
            monitor_periods=int(cpu["wall_s"] * 1000 / experiment.sample_period_ms)
            if self.recordings
            else 0,
        )
        fidelity.write(self.out)
        return fidelity

    def _start_monitors(self, net: Dumbbell) -> None:
        """The queue monitor of each router whose bottleneck direction has an AQM."""
        period_s = self.point.experiment.sample_period_ms / 1000
        for side, name in ROUTER_NAMES.items():
            aqm = net.spec.aqm_of(side)
            if aqm is None:
                continue
            router = net.router(side)
            metadata = {
                "router": f"{net.spec.name_prefix}{name}",
                "switch": router.switch.model_dump(mode="json"),
                "pipeline": router.pipeline.model_dump(mode="json"),
                "aqm": {BOTTLENECK_PORT: aqm.model_dump(mode="json")},
            }
            self.recordings[name] = router.monitor(
                period_s,
                {BOTTLENECK_PORT: aqm.probes()},
                out=self.out / f"monitor-{name}.parquet",
                metadata=metadata,
            )

    def _start_tuning(self) -> None:
        """The tuning rules on every connection the point's processes open, from before
        the first one (p4aqm/tuning/)."""
        rules = self.point.experiment.tuning
        if rules is None:
            return
        if self.cgroup is None:
            raise RuntimeError(
                "tuning: needs the point's cgroup, and this machine has no cgroup v2"
            )
        self.tuner = Tuner(rules, self.cgroup.path, self.cgroup.path.name).attach()

    def _start_tracers(self, net: Dumbbell) -> None:
        """The per-flow TCP tracer of each traced host, from before the first connection."""
        trace = self.point.experiment.tcp_trace
        if trace is None:
            return
        (self.out / "tcp").mkdir(exist_ok=True)
        for host in trace.hosts:
            command = launch.tcp_trace_command(trace, self.out / "tcp" / f"{host}.parquet")
            self.processes[f"tcp-trace-{host}"] = net.host(host).popen(command)

    def _start_receivers(self, net: Dumbbell) -> None:
        traffic = self.point.experiment.traffic
        if traffic.web is not None:
            hosts = [h for _, s in launch.web_sides(net, traffic.web.two_way) for h in s]
            for name, process in launch.start_web_servers(net, self.out / "web", hosts).items():
                self.processes[f"web-server-{name}"] = process
        for kind, base in (("cbr", launch.CBR_PORT), ("blast", launch.BLAST_PORT)):
            for i, flow in enumerate(getattr(traffic, kind)):
                (self.out / "udp").mkdir(exist_ok=True)
                command = launch.udp_receiver_command(
                    f"{net.ip(flow.server)}:{base + i}", self.out / "udp" / f"{kind}{i}.parquet"
                )
                self.processes[f"{kind}{i}-recv"] = net.host(flow.server).popen(command)

    def _start_bulk(self, net: Dumbbell) -> dict[str, subprocess.Popen]:
        """Both ends of every group of bulk flows, once all have said they are ready (the
        listening ends bound); they take the epoch on stdin. A Python end takes about a
        second to start, many seconds on a loaded machine: started at the epoch, the
        connecting ends of 2026-11-30 came 4-23 s late (traffic.bulk's docstring)."""
        ends: dict[str, subprocess.Popen] = {}
        for i, first_flow, flows in self._bulk_groups():
            (self.out / "bulk").mkdir(exist_ok=True)
            for role, host in (("listen", flows.server), ("connect", flows.client)):
                sends = (role == "connect") != flows.reverse
                command = launch.bulk_end_command(
                    role, flows, net.ip(flows.server), first_flow, self.total_s,
                    self.out / "bulk" / f"flows{i}-{'sender' if sends else 'receiver'}.parquet",
                )  # fmt: skip
                ends[f"bulk{i}-{role}"] = net.host(host).popen(
                    command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE, text=True,
                )  # fmt: skip
        for name, process in ends.items():
            # The connecting ends are senders: a point waits for them to end.
            (self.senders if name.endswith("-connect") else self.processes)[name] = process
        _await_ready(ends, BULK_READY_S)
        return ends

    def _bulk_groups(self) -> list[tuple[int, int, BulkTraffic]]:
        """Each group of bulk flows with the number of its first flow: flow k of the point
        uses port launch.BULK_PORT + k."""
        groups, first_flow = [], 0
        for i, flows in enumerate(self.point.experiment.traffic.bulk):
            groups.append((i, first_flow, flows))
            first_flow += flows.flows
        return groups

    def _start_senders(self, net: Dumbbell, epoch_ns: int) -> None:
        experiment = self.point.experiment
        traffic = experiment.traffic
        if traffic.web is not None and self.point.web_users:
            first_k = 0
            for side in launch.web_sides(net, traffic.web.two_way):
                clients = launch.start_web_clients(
                    net, self.point.web_users, traffic.web.params, self.total_s,
                    self.out / "web", experiment.seed, side, first_k,
                )  # fmt: skip
                first_k += len(side[0])
                for name, process in clients.items():
                    self.senders[f"web-client-{name}"] = process
        for kind, base in (("cbr", launch.CBR_PORT), ("blast", launch.BLAST_PORT)):
            for i, flow in enumerate(getattr(traffic, kind)):
                stop_s = flow.stop_s if flow.stop_s is not None else self.total_s
                # The run's seed, apart for the blasts: cbr0 and blast0 do not jitter alike.
                seed = 2 * experiment.seed + (kind == "blast")
                command = launch.udp_sender_command(
                    f"{net.ip(flow.server)}:{base + i}", flow, i, epoch_ns, stop_s,
                    self.out / "udp" / f"{kind}{i}.json", seed,
                )  # fmt: skip
                self.senders[f"{kind}{i}-send"] = net.host(flow.client).popen(
                    command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
                )

    def _measure(self, net: Dumbbell, epoch_ns: int, progress: Progress) -> dict[str, int]:
        """Per second until the end: the bottleneck's bytes each way into throughput.csv,
        and the live figures for the progress display."""
        experiment = self.point.experiment
        rate = net.spec.bottleneck_rate_bps
        # A router's bottleneck interface receives what the other router sent over it.
        interfaces = {
            DIRECTIONS[LEFT]: net.routers[1].intfs[BOTTLENECK_PORT].name,
            DIRECTIONS[RIGHT]: net.routers[0].intfs[BOTTLENECK_PORT].name,
        }
        rows = []
        last = {d: _counter(i, "rx_bytes") for d, i in interfaces.items()}
        last_ns = time.time_ns()
        end_ns = epoch_ns + int(self.total_s * 1e9)
        while True:
            time.sleep(max(0.0, (min(last_ns + 1_000_000_000, end_ns) - time.time_ns()) / 1e9))
            now_ns = time.time_ns()
            live: dict[str, float] = {
                "elapsed_s": (now_ns - epoch_ns) / 1e9,
                "total_s": self.total_s,
            }
            for direction, interface in interfaces.items():
                count = _counter(interface, "rx_bytes")
                bps = 8 * (count - last[direction]) / ((now_ns - last_ns) / 1e9)
                rows.append(
                    {
                        Column.REALTIME_NS: now_ns,
                        "elapsed_s": round((now_ns - epoch_ns) / 1e9, 3),
                        "direction": direction,
                        "bytes": count - last[direction],
                        "bps": round(bps),
                        "utilisation": round(bps / rate, 5),
                        # the whole second after the warm-up: it began after it
                        "measured": (last_ns - epoch_ns) / 1e9 >= experiment.warmup_s,
                    }
                )
                last[direction] = count
                live[f"{direction}_bps"] = bps
            live.update(_bottleneck_figures(net))
            progress(live)
            last_ns = now_ns
            if now_ns >= end_ns:
                break
        with (self.out / "throughput.csv").open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        warm_ns = epoch_ns + int(experiment.warmup_s * 1e9)
        return {"start_ns": warm_ns, "end_ns": end_ns}

    def _wait_senders(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        failures = []
        for name, process in self.senders.items():
            left_s = max(0.1, deadline - time.monotonic())
            try:
                if name.startswith("web-client-"):
                    host = name.removeprefix("web-client-")
                    summary = launch.client_summary(host, process, left_s)
                    path = self.out / "web" / f"{host}.summary.json"
                    path.write_text(json.dumps(summary) + "\n")
                    continue
                out, err = process.communicate(timeout=left_s)
            except subprocess.TimeoutExpired:
                failures.append(f"{name}: still running {timeout_s:.0f} s after the end")
                continue
            except RuntimeError as exc:
                failures.append(str(exc))
                continue
            if process.returncode != 0:
                failures.append(
                    f"{name}: exit {process.returncode}: {(err or out or '').strip()[-500:]}"
                )
        if failures:
            raise RuntimeError("; ".join(failures))

    def _stop_tuning(self) -> list[str]:
        """Read what each rule tuned and detach the rules; the errors."""
        if self.tuner is None:
            return []
        errors = []
        for step in (self._read_tuned, self.tuner.detach):
            try:
                step()
            except TuningError as exc:
                errors.append(f"tuning: {exc}")
        return errors

    def _read_tuned(self) -> None:
        assert self.tuner is not None
        self.tuned = self.tuner.counters()
        for rule, name in self.tuner.congestion_controls().items():
            self.tuned[rule]["congestion_control"] = name

    def _stop_all(self) -> None:
        errors = self._stop_tuning()
        for name, recording in self.recordings.items():
            try:
                recording.stop()
            except Exception as exc:  # noqa: BLE001 - the processes must still be stopped
                errors.append(f"the queue monitor of {name}: {exc}")
        for process in [*self.senders.values(), *self.processes.values()]:
            if process.poll() is None:
                process.terminate()
        for process in [*self.senders.values(), *self.processes.values()]:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if errors:
            raise RuntimeError("; ".join(errors))


def _tell_epoch(ends: dict[str, subprocess.Popen], epoch_ns: int) -> None:
    """Give each end the epoch; a RuntimeError naming one that ended since it was ready."""
    for name, process in ends.items():
        assert process.stdin is not None and process.stderr is not None
        try:
            process.stdin.write(f"{epoch_ns}\n")
            process.stdin.flush()
        except BrokenPipeError:
            process.wait()
            said = process.stderr.read().strip()[-500:]
            raise RuntimeError(
                f"{name}: exit {process.returncode} after it was ready: {said}"
            ) from None


def _await_ready(ends: dict[str, subprocess.Popen], timeout_s: float) -> None:
    """Wait for each process's "ready" line; a RuntimeError naming the first that ended or
    was not ready within timeout_s, with what it said."""
    deadline = time.monotonic() + timeout_s
    for name, process in ends.items():
        assert process.stdout is not None and process.stderr is not None
        readable, _, _ = select.select(
            [process.stdout], [], [], max(0.0, deadline - time.monotonic())
        )
        line = process.stdout.readline() if readable else ""
        if line.strip() == "ready":
            continue
        if not readable:
            raise RuntimeError(f"{name}: not ready after {timeout_s:.0f} s")
        # End of its output (or another line): it is ending, its status comes just after.
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"{name}: said {line.strip()!r} instead of ready") from None
        said = (line + process.stderr.read()).strip()[-500:]
        raise RuntimeError(f"{name}: exit {process.returncode} before it was ready: {said}")


def _bottleneck_figures(net: Dumbbell) -> dict[str, float]:
    """The server -> client bottleneck's queue and drops, for the progress display."""
    try:
        state = net.router(RIGHT).port_state(BOTTLENECK_PORT)
    except Exception:  # noqa: BLE001 - the display must not end the run
        return {}
    tm_drops = field_name(LeafName.TM_DROPS)
    return {Column.QDEPTH_PKTS: state.qdepth_pkts, tm_drops: state.counters.get(tm_drops, 0)}
