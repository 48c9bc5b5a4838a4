"""Web users on a dumbbell for a while, and the load they put on the bottleneck.

The users run as in an experiment point, started by the same launcher (launch.py). The
offered load is
what crossed the bottleneck server -> client (the replies) in the measured window: the
frame bytes the left router's bottleneck interface received, the same bytes the
bottleneck's rate counts."""

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p4aqm.experiments import launch
from p4aqm.topology import Dumbbell
from p4aqm.topology.dumbbell import BOTTLENECK_PORT
from p4aqm.traffic.web.browsing import WebParams


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
    """Web users as an experiment point runs them (launch.py), for warmup_s + measure_s,
    and what crossed the bottleneck and what the processes cost in the measured window."""
    servers = launch.start_web_servers(net, out_dir)
    time.sleep(launch.SERVER_START_S)
    clients = launch.start_web_clients(net, users, params, warmup_s + measure_s, out_dir, seed)
    try:
        time.sleep(warmup_s)
        start = time.monotonic()
        before = _window_counts(net, [*clients.values()], [*servers.values()], watch_pids)
        time.sleep(measure_s)
        after = _window_counts(net, [*clients.values()], [*servers.values()], watch_pids)
        window_s = time.monotonic() - start
        summaries = {name: launch.client_summary(name, p, 120) for name, p in clients.items()}
    finally:
        for process in [*servers.values(), *clients.values()]:
            process.terminate()
            process.wait(timeout=30)
    return WebLoad(
        users=users,
        offered_load_bps=8 * (after.reply_bytes - before.reply_bytes) / window_s,
        reverse_load_bps=8 * (after.request_bytes - before.request_bytes) / window_s,
        window_s=window_s,
        clients=summaries,
        client_cpu_s=after.client_cpu_s - before.client_cpu_s,
        server_cpu_s=after.server_cpu_s - before.server_cpu_s,
        watched_cpu_s={p: after.watched_cpu_s[p] - before.watched_cpu_s[p] for p in watch_pids},
        machine_busy=(after.machine[0] - before.machine[0])
        / (after.machine[1] - before.machine[1]),
    )


def _busy_share(before: tuple[int, int], after: tuple[int, int]) -> float:
    return (after[0] - before[0]) / (after[1] - before[1])


@dataclass
class _Counts:
    """The counters a window's figures are differences of."""

    reply_bytes: int
    request_bytes: int
    client_cpu_s: float
    server_cpu_s: float
    watched_cpu_s: dict[int, float]
    machine: tuple[int, int]


def _window_counts(
    net: Dumbbell,
    clients: list[subprocess.Popen],
    servers: list[subprocess.Popen],
    watch_pids: tuple[int, ...],
) -> _Counts:
    return _Counts(
        reply_bytes=_bottleneck_rx_bytes(net, 1),
        request_bytes=_bottleneck_rx_bytes(net, 2),
        client_cpu_s=sum(cpu_seconds(p.pid) for p in clients),
        server_cpu_s=sum(cpu_seconds(p.pid) for p in servers),
        watched_cpu_s={p: cpu_seconds(p) for p in watch_pids},
        machine=machine_ticks(),
    )
