"""Web users on a dumbbell for a while, and the load they put on the bottleneck.

The users are split evenly over the client hosts (one client process each), a web server
runs on every server host, and every user picks among all servers. The offered load is
what crossed the bottleneck server -> client (the replies) in the measured window: the
frame bytes the left router's bottleneck interface received, the same bytes the
bottleneck's rate counts."""

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from topologies import Dumbbell
from topologies.dumbbell import BOTTLENECK_PORT
from traffic.web.browsing import WebParams

WEB_PORT = 8080


@dataclass
class WebLoad:
    users: int
    offered_load_bps: float  # server -> client, frames on the bottleneck
    reverse_load_bps: float  # client -> server: requests and ACKs
    window_s: float
    clients: dict[str, dict[str, Any]]  # each client process's summary
    client_cpu_s: float  # CPU seconds of the client processes in the window
    server_cpu_s: float
    watched_cpu_s: dict[int, float]  # CPU seconds in the window of each pid asked for
    machine_busy: float  # the machine's busy share of all its cores in the window

    @property
    def late_starts(self) -> int:
        return sum(int(s.get("late_starts", 0)) for s in self.clients.values())


def web_client_flags(params: WebParams) -> list[str]:
    """WebParams as traffic.web.client flags: one flag per field, the field's name."""
    flags = []
    for name, value in params.model_dump().items():
        flags += [f"--{name.replace('_', '-')}", str(value)]
    return flags


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (all its threads), in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_ticks() -> tuple[int, int]:
    """Busy and total CPU ticks of the whole machine since boot (/proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return sum(fields) - idle, sum(fields)


def _bottleneck_rx_bytes(net: Dumbbell, side: int) -> int:
    router = net.routers[side - 1]
    name = router.intfs[BOTTLENECK_PORT].name
    return int(Path(f"/sys/class/net/{name}/statistics/rx_bytes").read_text())


def run_web_load(
    net: Dumbbell,
    users: int,
    params: WebParams,
    out_dir: Path,
    warmup_s: float,
    measure_s: float,
    seed: int = 1,
    watch_pids: tuple[int, ...] = (),
) -> WebLoad:
    out_dir.mkdir(parents=True, exist_ok=True)
    python = sys.executable
    servers = []
    for name in net.servers():
        command = [python, "-m", "traffic.web.server", "--listen", f"{net.ip(name)}:{WEB_PORT}"]
        command += ["--records", str(out_dir / f"{name}.parquet"), "--host-name", name]
        servers.append(net.host(name).popen(command, stdout=subprocess.DEVNULL))
    time.sleep(1.0)  # the servers listen
    targets = ",".join(f"{s}={net.ip(s)}:{WEB_PORT}" for s in net.servers())
    hosts = net.clients()
    clients = {}
    duration_s = warmup_s + measure_s + 1
    for k, name in enumerate(hosts):
        share = users // len(hosts) + (1 if k < users % len(hosts) else 0)
        command = [python, "-m", "traffic.web.client", "--users", str(share)]
        command += ["--servers", targets, "--duration-s", str(duration_s)]
        command += ["--records", str(out_dir / f"{name}.parquet"), "--host-name", name]
        command += ["--seed", str(seed * 1000 + k), *web_client_flags(params)]
        clients[name] = net.host(name).popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    try:
        time.sleep(warmup_s)
        start = time.monotonic()
        reply0, request0 = _bottleneck_rx_bytes(net, 1), _bottleneck_rx_bytes(net, 2)
        clients0 = sum(cpu_seconds(p.pid) for p in clients.values())
        servers0 = sum(cpu_seconds(p.pid) for p in servers)
        watched0, machine0 = {p: cpu_seconds(p) for p in watch_pids}, machine_ticks()
        time.sleep(measure_s)
        watched1, machine1 = {p: cpu_seconds(p) for p in watch_pids}, machine_ticks()
        reply1, request1 = _bottleneck_rx_bytes(net, 1), _bottleneck_rx_bytes(net, 2)
        clients1 = sum(cpu_seconds(p.pid) for p in clients.values())
        servers1 = sum(cpu_seconds(p.pid) for p in servers)
        window_s = time.monotonic() - start
        summaries = {}
        for name, process in clients.items():
            out, err = process.communicate(timeout=120)
            if process.returncode != 0:
                raise RuntimeError(f"web client on {name} failed: {err.strip() or out.strip()}")
            summaries[name] = json.loads(out.strip().splitlines()[-1])
    finally:
        for process in [*servers, *clients.values()]:
            process.terminate()
            process.wait(timeout=30)
    return WebLoad(
        users=users,
        offered_load_bps=8 * (reply1 - reply0) / window_s,
        reverse_load_bps=8 * (request1 - request0) / window_s,
        window_s=window_s,
        clients=summaries,
        client_cpu_s=clients1 - clients0,
        server_cpu_s=servers1 - servers0,
        watched_cpu_s={p: watched1[p] - watched0[p] for p in watch_pids},
        machine_busy=(machine1[0] - machine0[0]) / (machine1[1] - machine0[1]),
    )
