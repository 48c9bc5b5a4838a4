"""One point of an experiment: bring the topology up, start the monitor, the servers and
the traffic, measure, stop, and leave every file in the point's folder.

Files of a point (experiments/README.md):
    topology/            controller configs, switch logs, the topology's manifest
    monitor-ROUTER.parquet   the queue monitor's samples of each AQM router
    web/HOST.parquet     per-request (clients) and per-connection (servers) records
    udp/FLOW.parquet     per-packet records of each CBR flow and blast, FLOW.json its
                         sender's summary
    bulk/FLOW.json       iperf3's report of each bulk flow
    throughput.csv       per second and direction: bottleneck bytes, bit/s, utilisation
    drops.json           the bottleneck ports' traffic-manager drops, from the switches
"""

import asyncio
import csv
import dataclasses
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from finsy import GNMIClient, GNMIPath

from experiments.spec import Point
from experiments.web_load import WEB_PORT, web_client_flags
from topologies import Dumbbell
from topologies.dumbbell import BOTTLENECK_PORT, LEFT, RIGHT
from traffic import bulk

CBR_PORT, BLAST_PORT, BULK_PORT = 9000, 9500, 5201
START_DELAY_S = 1.0  # between starting the receivers and the senders' epoch
DIRECTIONS = {LEFT: "client_to_server", RIGHT: "server_to_client"}

Progress = Callable[[dict[str, float]], None]


def _python(module: str, *args: object) -> list[str]:
    return [sys.executable, "-m", module, *map(str, args)]


def _counter(interface: str, name: str) -> int:
    return int(Path(f"/sys/class/net/{interface}/statistics/{name}").read_text())


async def _port_state(grpc_addr: str) -> dict[str, int]:
    port = f"/p4aqm/ports/port[id={BOTTLENECK_PORT}]"
    async with GNMIClient(grpc_addr) as client:
        counters = await client.get(GNMIPath(f"{port}/state/counters"))
        depth = await client.get(GNMIPath(f"{port}/queues/queue[id=0]/state/depth"))
    state = {str(u.path).rsplit("/", 1)[-1]: int(u.value) for u in counters}
    state["depth"] = int(depth[0].value) if depth else 0
    return state


class PointRun:
    def __init__(self, point: Point, out: Path) -> None:
        self.point = point
        self.out = out
        self.processes: dict[str, subprocess.Popen] = {}
        self.senders: dict[str, subprocess.Popen] = {}

    def run(self, progress: Progress) -> dict[str, Any]:
        point = self.point
        experiment = point.experiment
        spec = dataclasses.replace(
            point.topology, run_dir=self.out / "topology", name_prefix="p4run"
        )
        with Dumbbell(spec) as net:
            self.net = net
            started_ns = time.time_ns()
            try:
                self._start_monitors(net)
                self._start_receivers(net)
                time.sleep(START_DELAY_S)
                epoch_ns = time.time_ns()
                self._start_senders(net, epoch_ns)
                total_s = experiment.warmup_s + experiment.duration_s
                window = self._measure(net, epoch_ns, total_s, progress)
                self._wait_senders(timeout_s=60)
            finally:
                self._stop_all()
            drops = {
                name: asyncio.run(_port_state(r["grpc_addr"]))
                for name, r in net.manifest["routers"].items()
            }
            (self.out / "drops.json").write_text(json.dumps(drops, indent=2))
            topology_manifest = net.manifest
        return {
            "epoch_ns": epoch_ns,
            "started_ns": started_ns,
            "window": window,
            "web_users": point.web_users,
            "topology": topology_manifest,
        }

    def _start_monitors(self, net: Dumbbell) -> None:
        """The queue monitor of each router whose bottleneck direction has an AQM."""
        p4aqm = str(Path(sys.executable).parent / "p4aqm")
        period = str(self.point.experiment.sample_period_ms)
        for side, name in ((LEFT, "r1"), (RIGHT, "r2")):
            aqm = net.spec.left_to_right_aqm if side == LEFT else net.spec.right_to_left_aqm
            if aqm is None:
                continue
            router = net.manifest["routers"][f"{net.spec.name_prefix}{name}"]
            out = self.out / f"monitor-{name}.parquet"
            command = [p4aqm, "controller", router["controller_config"], "--sample", str(out)]
            log = (self.out / f"monitor-{name}.log").open("w")
            self.processes[f"monitor-{name}"] = subprocess.Popen(
                [*command, "--period-ms", period], stdout=log, stderr=subprocess.STDOUT
            )
            deadline = time.monotonic() + 30
            while not out.exists() and not Path(f"{out}.parts").exists():
                if (
                    self.processes[f"monitor-{name}"].poll() is not None
                    or time.monotonic() > deadline
                ):
                    raise RuntimeError(f"the queue monitor of {name} did not start: see {log.name}")
                time.sleep(0.1)

    def _start_receivers(self, net: Dumbbell) -> None:
        traffic = self.point.experiment.traffic
        if traffic.web is not None:
            (self.out / "web").mkdir()
            for name in net.servers():
                command = _python(
                    "traffic.web.server", "--listen", f"{net.ip(name)}:{WEB_PORT}",
                    "--records", self.out / "web" / f"{name}-server.parquet", "--host-name", name,
                )  # fmt: skip
                self.processes[f"web-server-{name}"] = net.host(name).popen(command)
        for kind, base in (("cbr", CBR_PORT), ("blast", BLAST_PORT)):
            for i, flow in enumerate(getattr(traffic, kind)):
                (self.out / "udp").mkdir(exist_ok=True)
                records = self.out / "udp" / f"{kind}{i}.parquet"
                command = _python(
                    "traffic.cbr", "recv", "--listen", f"{net.ip(flow.server)}:{base + i}",
                    "--records", records,
                )  # fmt: skip
                self.processes[f"{kind}{i}-recv"] = net.host(flow.server).popen(command)
        duration = int(self.point.experiment.warmup_s + self.point.experiment.duration_s + 0.999)
        for k, flow in enumerate(self._bulk_flows(net, duration)):
            (self.out / "bulk").mkdir(exist_ok=True)
            server = self._bulk_server[k]
            report = self.out / "bulk" / f"flow{k}-server.json"
            self.processes[f"bulk{k}-server"] = net.host(server).popen(
                bulk.server_command(flow, report)
            )

    def _bulk_flows(self, net: Dumbbell, duration_s: int) -> list[bulk.BulkFlow]:
        flows, self._bulk_client, self._bulk_server = [], [], []
        for spec in self.point.experiment.traffic.bulk:
            for _ in range(spec.flows):
                k = len(flows)
                flows.append(
                    bulk.BulkFlow(
                        flow=k, server_address=net.ip(spec.server), port=BULK_PORT + k,
                        duration_s=duration_s, congestion_control=spec.congestion_control,
                        reverse=spec.reverse,
                    )
                )  # fmt: skip
                self._bulk_client.append(spec.client)
                self._bulk_server.append(spec.server)
        return flows

    def _start_senders(self, net: Dumbbell, epoch_ns: int) -> None:
        experiment = self.point.experiment
        traffic = experiment.traffic
        total_s = experiment.warmup_s + experiment.duration_s
        if traffic.web is not None and self.point.web_users:
            targets = ",".join(f"{s}={net.ip(s)}:{WEB_PORT}" for s in net.servers())
            clients = net.clients()
            users = self.point.web_users
            for k, name in enumerate(clients):
                share = users // len(clients) + (1 if k < users % len(clients) else 0)
                if share == 0:
                    continue
                command = _python(
                    "traffic.web.client", "--users", share, "--servers", targets,
                    "--duration-s", total_s, "--records", self.out / "web" / f"{name}.parquet",
                    "--host-name", name, "--seed", experiment.seed * 1000 + k,
                    *web_client_flags(traffic.web.params),
                )  # fmt: skip
                self.senders[f"web-client-{name}"] = net.host(name).popen(
                    command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
                )
        for kind, base in (("cbr", CBR_PORT), ("blast", BLAST_PORT)):
            for i, flow in enumerate(getattr(traffic, kind)):
                stop_s = flow.stop_s if flow.stop_s is not None else total_s
                command = _python(
                    "traffic.cbr", "send", "--dest", f"{net.ip(flow.server)}:{base + i}",
                    "--rate-bps", flow.rate_bps, "--payload-bytes", flow.payload_bytes,
                    "--dscp", flow.dscp, "--flow-id", i, "--epoch-ns", epoch_ns,
                    "--start-s", flow.start_s, "--duration-s", stop_s - flow.start_s,
                    "--summary", self.out / "udp" / f"{kind}{i}.json",
                )  # fmt: skip
                self.senders[f"{kind}{i}-send"] = net.host(flow.client).popen(
                    command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
                )
        duration = int(total_s + 0.999)
        for k, flow in enumerate(self._bulk_flows(net, duration)):
            report = self.out / "bulk" / f"flow{k}.json"
            self.senders[f"bulk{k}"] = net.host(self._bulk_client[k]).popen(
                bulk.client_command(flow, report), stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True,
            )  # fmt: skip

    def _measure(
        self, net: Dumbbell, epoch_ns: int, total_s: float, progress: Progress
    ) -> dict[str, int]:
        """Per second until the end: the bottleneck's bytes each way into throughput.csv,
        and the live figures for the progress display."""
        experiment = self.point.experiment
        rate = net.spec.bottleneck_rate_bps
        # A router's bottleneck interface receives what the other router sent over it.
        interfaces = {
            DIRECTIONS[LEFT]: net.routers[1].intfs[BOTTLENECK_PORT].name,
            DIRECTIONS[RIGHT]: net.routers[0].intfs[BOTTLENECK_PORT].name,
        }
        grpc = {
            d: r["grpc_addr"]
            for d, r in zip(DIRECTIONS.values(), net.manifest["routers"].values(), strict=True)
        }
        rows = []
        last = {d: _counter(i, "rx_bytes") for d, i in interfaces.items()}
        last_ns = time.time_ns()
        end_ns = epoch_ns + int(total_s * 1e9)
        while True:
            next_ns = min(last_ns + 1_000_000_000, end_ns)
            time.sleep(max(0.0, (next_ns - time.time_ns()) / 1e9))
            now_ns = time.time_ns()
            live: dict[str, float] = {"elapsed_s": (now_ns - epoch_ns) / 1e9, "total_s": total_s}
            for direction, interface in interfaces.items():
                count = _counter(interface, "rx_bytes")
                bps = 8 * (count - last[direction]) / ((now_ns - last_ns) / 1e9)
                rows.append(
                    {
                        "realtime_ns": now_ns,
                        "t_s": round((now_ns - epoch_ns) / 1e9, 3),
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
            try:
                state = asyncio.run(_port_state(grpc[DIRECTIONS[RIGHT]]))
                live["queue_pkts"] = state["depth"]
                live["tm_drops"] = state.get("tm-drops", 0)
            except Exception:  # noqa: BLE001 - the display must not end the run
                pass
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
            try:
                out, err = process.communicate(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                failures.append(f"{name}: still running {timeout_s:.0f} s after the end")
                continue
            if process.returncode != 0:
                failures.append(
                    f"{name}: exit {process.returncode}: {(err or out or '').strip()[-500:]}"
                )
            elif name.startswith("web-client-") and out:
                (self.out / "web" / f"{name.removeprefix('web-client-')}.summary.json").write_text(
                    out.strip().splitlines()[-1] + "\n"
                )
        if failures:
            raise RuntimeError("; ".join(failures))

    def _stop_all(self) -> None:
        for process in [*self.senders.values(), *self.processes.values()]:
            if process.poll() is None:
                process.terminate()
        for process in [*self.senders.values(), *self.processes.values()]:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
