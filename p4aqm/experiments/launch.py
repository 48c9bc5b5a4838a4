"""Starting the traffic generators in a dumbbell's hosts: the one launcher that
experiment points and the web calibration both use, so that what was calibrated is
what runs.

Web users are split evenly over the client hosts (one client process each, the first
hosts taking one more when the split is uneven), a web server listens on every server
host, and every user picks among all servers. Client k of a run with seed s draws from
seed s * 1000 + k: the same users, think times and sizes in every run of that seed.
"""

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Literal

from p4aqm.experiments.spec import BulkTraffic, TcpTrace, UdpFlow
from p4aqm.topology import Dumbbell
from p4aqm.traffic.web.browsing import WebParams

WEB_PORT = 8080
CBR_PORT, BLAST_PORT, BULK_PORT = 9000, 9500, 5201
SEEDS_PER_RUN = 1000
SERVER_START_S = 1.0  # for the web servers to listen before the first request


def python_module(module: str, *args: object) -> list[str]:
    """The command that runs one of our modules with this interpreter."""
    return [sys.executable, "-m", module, *map(str, args)]


def web_client_flags(params: WebParams) -> list[str]:
    """WebParams as traffic.web.client flags: one flag per field, the field's name."""
    flags = []
    for name, value in params.model_dump().items():
        flags += [f"--{name.replace('_', '-')}", str(value)]
    return flags


def user_shares(users: int, hosts: int) -> list[int]:
    """How many of `users` each of `hosts` client processes runs."""
    return [users // hosts + (1 if k < users % hosts else 0) for k in range(hosts)]


def client_seed(seed: int, k: int) -> int:
    return seed * SEEDS_PER_RUN + k


def web_sides(net: Dumbbell, two_way: bool) -> list[tuple[list[str], list[str]]]:
    """(client hosts, server hosts) of each direction of web traffic: the left's users
    browse the right's servers and, two-way, the right's users the left's."""
    sides = [(net.clients(), net.servers())]
    return [*sides, (net.servers(), net.clients())] if two_way else sides


def start_web_servers(
    net: Dumbbell, records_dir: Path, hosts: list[str] | None = None
) -> dict[str, subprocess.Popen]:
    """A web server on each of `hosts` (every server host by default), each recording
    its connections."""
    records_dir.mkdir(parents=True, exist_ok=True)
    servers = {}
    for name in net.servers() if hosts is None else hosts:
        command = python_module(
            "p4aqm.traffic.web.server", "--listen", f"{net.ip(name)}:{WEB_PORT}",
            "--records", records_dir / f"{name}-server.parquet", "--host-name", name,
        )  # fmt: skip
        servers[name] = net.host(name).popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
    return servers


def start_web_clients(
    net: Dumbbell,
    users: int,
    params: WebParams,
    duration_s: float,
    records_dir: Path,
    seed: int,
    side: tuple[list[str], list[str]] | None = None,
    first_k: int = 0,
) -> dict[str, subprocess.Popen]:
    """`users` web users over the client hosts of `side` (by default the left's, browsing
    the right's servers) for `duration_s`, each client process recording its requests; a
    host whose share is 0 runs none. Client processes are numbered from first_k."""
    hosts, server_hosts = side or (net.clients(), net.servers())
    targets = ",".join(f"{s}={net.ip(s)}:{WEB_PORT}" for s in server_hosts)
    clients = {}
    shares = user_shares(users, len(hosts))
    for k, (name, share) in enumerate(zip(hosts, shares, strict=True), start=first_k):
        if share == 0:
            continue
        command = python_module(
            "p4aqm.traffic.web.client", "--users", share, "--servers", targets,
            "--duration-s", duration_s, "--records", records_dir / f"{name}.parquet",
            "--host-name", name, "--seed", client_seed(seed, k), *web_client_flags(params),
        )  # fmt: skip
        clients[name] = net.host(name).popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    return clients


def client_summary(name: str, process: subprocess.Popen, timeout_s: float) -> dict[str, Any]:
    """The summary a web client prints last (JSON), once it has exited; a RuntimeError
    naming the host if it failed or did not end in time."""
    try:
        out, err = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"web client on {name}: still running {timeout_s:.0f} s late") from None
    if process.returncode != 0:
        text = (err or out or "").strip()[-500:]
        raise RuntimeError(f"web client on {name}: exit {process.returncode}: {text}")
    return json.loads(out.strip().splitlines()[-1])


def udp_receiver_command(listen: str, records: Path) -> list[str]:
    return python_module("p4aqm.traffic.cbr", "recv", "--listen", listen, "--records", records)


def tcp_trace_command(trace: TcpTrace, records: Path) -> list[str]:
    """The per-flow TCP tracer of one host (p4aqm/traffic/tcp_trace.py)."""
    ports = [flag for port in trace.ports for flag in ("--port", port)]
    return python_module(
        "p4aqm.traffic.tcp_trace", "--out", records, "--period-ms", trace.period_ms, *ports
    )


def udp_sender_command(
    dest: str,
    flow: UdpFlow,
    flow_id: int,
    epoch_ns: int,
    stop_s: float,
    summary: Path,
    seed: int = 0,
) -> list[str]:
    """A CBR sender (a multimedia flow or a blast)
    from `flow.start_s` to `stop_s` after the run's epoch."""
    return python_module(
        "p4aqm.traffic.cbr", "send", "--dest", dest, "--rate-bps", flow.rate_bps,
        "--payload-bytes", flow.payload_bytes, "--dscp", flow.dscp, "--flow-id", flow_id,
        "--epoch-ns", epoch_ns, "--start-s", flow.start_s,
        "--duration-s", stop_s - flow.start_s, "--summary", summary,
        "--jitter-percent", flow.jitter_percent, "--seed", seed,
    )  # fmt: skip


def bulk_end_command(
    role: Literal["listen", "connect"],
    flows: BulkTraffic,
    server_address: str,
    first_flow: int,
    duration_s: float,
    records: Path,
) -> list[str]:
    """One end of a group of bulk flows (p4aqm/traffic/bulk.py): the server host listens,
    the client host connects, and the client sends unless the flows are `reverse`. It says
    "ready" and then reads the epoch from stdin."""
    sends = (role == "connect") != flows.reverse
    command = python_module(
        "p4aqm.traffic.bulk", role, "--address", server_address, "--port", BULK_PORT,
        "--first-flow", first_flow, "--flows", flows.flows,
        "--send" if sends else "--receive", "--duration-s", duration_s, "--records", records,
    )  # fmt: skip
    if flows.congestion_control is not None:
        command += ["--congestion-control", flows.congestion_control]
    return command


def run_web_users(
    net: Dumbbell,
    users: int,
    duration_s: float,
    records_dir: Path,
    params: WebParams | None = None,
    seed: int = 1,
) -> dict[str, dict[str, Any]]:
    """Web servers and `users` web users for `duration_s`, as a point runs them; each
    client host's summary once its users are done (their requests are in records_dir)."""
    servers = start_web_servers(net, records_dir)
    clients: dict[str, subprocess.Popen] = {}
    try:
        time.sleep(SERVER_START_S)
        clients = start_web_clients(
            net, users, params or WebParams(), duration_s, records_dir, seed
        )
        return {name: client_summary(name, p, duration_s + 60) for name, p in clients.items()}
    finally:
        for process in [*clients.values(), *servers.values()]:
            if process.poll() is None:
                process.terminate()
            process.wait(timeout=30)
