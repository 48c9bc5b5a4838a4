"""The generators in the dumbbell on `p4aqm switch`: a 30 s web run whose reply sizes
follow Mah's distribution, response times of at least 2 RTT, CBR loss and one-way delay
exact against the switch's own drop count and link delay, a blast on its schedule."""

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from programs import CompiledProgram

if os.geteuid() != 0:
    pytest.skip("the dumbbell needs root (namespaces, veths)", allow_module_level=True)

from finsy import GNMIClient, GNMIPath  # noqa: E402
from goodness_of_fit import chi_square, critical_value  # noqa: E402

from p4aqm.topology import Dumbbell, DumbbellSpec  # noqa: E402
from p4aqm.topology.dumbbell import BOTTLENECK_PORT  # noqa: E402
from p4aqm.traffic import cbr  # noqa: E402
from p4aqm.traffic.mah import load_mah  # noqa: E402
from p4aqm.traffic.records import read_records  # noqa: E402

WEB_PORT = 8080
UDP_PORT = 9000


def module(name: str, *args: object) -> list[str]:
    return [sys.executable, "-m", name, *map(str, args)]


@pytest.fixture(scope="module")
def idle(l3_program: CompiledProgram, tmp_path_factory: pytest.TempPathFactory) -> Dumbbell:
    """The default dumbbell with an unconstrained (100 Mbit/s) bottleneck."""
    spec = DumbbellSpec(
        build_dir=l3_program.json_path.parent,
        run_dir=tmp_path_factory.mktemp("idle"),
        bottleneck_rate_bps=100_000_000,
        name_prefix="p4w",
    )
    with Dumbbell(spec) as net:
        yield net


@pytest.fixture(scope="module")
def web_run(idle: Dumbbell, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """30 s of web browsing: 150 users on each client host, a server on each server host."""
    out = tmp_path_factory.mktemp("web")
    servers = {}
    for name in idle.servers():
        command = module(
            "p4aqm.traffic.web.server", "--listen", f"{idle.ip(name)}:{WEB_PORT}",
            "--records", out / f"{name}.parquet", "--host-name", name,
        )  # fmt: skip
        servers[name] = idle.host(name).popen(command, stdout=subprocess.PIPE, text=True)
    time.sleep(1.0)
    targets = ",".join(f"{s}={idle.ip(s)}:{WEB_PORT}" for s in idle.servers())
    clients = {}
    for k, name in enumerate(idle.clients()):
        command = module(
            "p4aqm.traffic.web.client", "--users", 150, "--servers", targets, "--duration-s", 30,
            "--records", out / f"{name}.parquet", "--host-name", name, "--seed", k + 1,
            "--start-policy", "ramp", "--ramp-s", 5,
        )  # fmt: skip
        clients[name] = idle.host(name).popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
    outputs = {name: p.communicate(timeout=120)[0] for name, p in clients.items()}
    for process in servers.values():
        process.terminate()
        process.communicate(timeout=30)
    for name, process in clients.items():
        assert process.returncode == 0, f"{name}: {outputs[name]}"
    return {
        "clients": {n: read_records(out / f"{n}.parquet") for n in idle.clients()},
        "servers": {n: read_records(out / f"{n}.parquet") for n in idle.servers()},
        "outputs": outputs,
    }


def test_web_run_completes_with_reply_sizes_from_mahs_distribution(web_run: dict) -> None:
    clients = [frame for frame, _ in web_run["clients"].values()]
    servers = [frame for frame, _ in web_run["servers"].values()]
    requests = np.concatenate([f["outcome"].to_numpy() for f in clients])
    outcomes = dict(zip(*np.unique(requests, return_counts=True), strict=True))
    assert outcomes.get("ok", 0) > 500, outcomes
    assert set(outcomes) <= {"ok", "cancelled"}, outcomes  # nothing refused, reset or lost
    served = np.concatenate([f["reply_bytes"].to_numpy() for f in servers])
    complete = [f[f["outcome"] == "ok"] for f in servers]
    for frame in complete:  # the server sends exactly what was asked
        assert (frame["sent_bytes"] == frame["reply_bytes"]).all()
    statistic, degrees = chi_square(load_mah().reply_bytes, served, bins=10)
    assert statistic < critical_value(degrees), (statistic, degrees, len(served))


def test_response_times_are_at_least_two_rtts_of_the_pair(idle: Dumbbell, web_run: dict) -> None:
    """connect() takes one RTT, the request and the reply's first byte another."""
    checked = 0
    for client, (frame, _) in web_run["clients"].items():
        ok = frame[frame["outcome"] == "ok"]
        for server, group in ok.groupby("server_host"):
            rtt_us = idle.rtt_target_us(client, server)
            shortest = int(group["response_time_us"].min())
            assert shortest >= 2 * rtt_us, f"{client}->{server}: {shortest} us < 2 x {rtt_us}"
            # ... and an idle path adds little to the smallest replies: within 1 RTT + 5 ms.
            assert shortest <= 3 * rtt_us + 5_000, f"{client}->{server}: {shortest} us"
            srtt = group["tcpi_rtt_us"].median()
            assert srtt >= rtt_us, f"{client}->{server}: TCP's srtt {srtt} us < {rtt_us}"
            checked += 1
    assert checked == 9


def test_blast_starts_and_stops_at_its_times(idle: Dumbbell, tmp_path: Path) -> None:
    records = tmp_path / "blast.parquet"
    receiver = idle.host("s1").popen(
        module("p4aqm.traffic.cbr", "recv", "--listen", f"{idle.ip('s1')}:{UDP_PORT}",
               "--records", records),
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    epoch_ns = time.time_ns() + 1_000_000_000
    summary = tmp_path / "blast.json"
    blast = idle.host("c1").popen(
        module("p4aqm.traffic.cbr", "send", "--dest", f"{idle.ip('s1')}:{UDP_PORT}",
               "--rate-bps", 10e6, "--payload-bytes", 1000, "--dscp", 0, "--epoch-ns", epoch_ns,
               "--start-s", 1.0, "--duration-s", 2.0, "--summary", summary),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    out, _ = blast.communicate(timeout=30)
    assert blast.returncode == 0, out
    time.sleep(0.5)
    receiver.terminate()
    receiver.communicate(timeout=30)
    packets, _ = read_records(records)
    first_s = (packets["recv_ns"].min() - epoch_ns) / 1e9
    last_s = (packets["recv_ns"].max() - epoch_ns) / 1e9
    assert abs(first_s - 1.0) <= 0.05 and abs(last_s - 3.0) <= 0.05, (first_s, last_s)
    sent = json.loads(summary.read_text())
    assert len(packets) == sent["packets_sent"], (len(packets), sent)


async def _tm_drops(grpc_addr: str, port: int) -> int:
    async with GNMIClient(grpc_addr) as client:
        path = GNMIPath(f"/p4aqm/ports/port[id={port}]/state/counters/tm-drops")
        (update,) = await client.get(path)
        return int(update.value)


def test_cbr_loss_and_one_way_delay_are_exact(l3_program: CompiledProgram, tmp_path: Path) -> None:
    """A 2 Mbit/s CBR flow into a 1 Mbit/s bottleneck with a 20-packet queue: the packets
    it lost are the ones the switch dropped, and the shortest one-way delay is the path's
    (c1 0 ms + s2 37 ms, plus the serialisations)."""
    spec = DumbbellSpec(
        build_dir=l3_program.json_path.parent,
        run_dir=tmp_path / "run",
        bottleneck_rate_bps=1_000_000,
        left_to_right_depth_pkts=20,
        name_prefix="p4x",
    )
    with Dumbbell(spec) as net:
        records = tmp_path / "cbr.parquet"
        receiver = net.host("s2").popen(
            module("p4aqm.traffic.cbr", "recv", "--listen", f"{net.ip('s2')}:{UDP_PORT}",
                   "--records", records),
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        time.sleep(0.5)
        summary = tmp_path / "cbr.json"
        sender = net.host("c1").popen(
            module("p4aqm.traffic.cbr", "send", "--dest", f"{net.ip('s2')}:{UDP_PORT}",
                   "--rate-bps", 2_000_000, "--duration-s", 4, "--summary", summary),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        out, _ = sender.communicate(timeout=30)
        assert sender.returncode == 0, out
        time.sleep(1.0)  # the queue drains
        receiver.terminate()
        receiver.communicate(timeout=30)
        router = net.manifest["routers"]["p4xr1"]
        dropped = asyncio.run(_tm_drops(router["grpc_addr"], BOTTLENECK_PORT))
    packets, _ = read_records(records)
    sent = json.loads(summary.read_text())["packets_sent"]
    flows = cbr.summarize(packets, {0: sent})
    lost = int(flows["lost"].iloc[0])
    assert dropped > 0 and lost == dropped, (lost, dropped, sent)
    # 1042-byte frames (1000 payload + 8 UDP + 20 IP + 14 Ethernet): 83 us at 100 Mbit/s
    # on each access link, 8.3 ms at 1 Mbit/s on the bottleneck.
    path_us = 37_000 + 2 * 1042 * 8 / 100 + 1042 * 8 / 1
    shortest_us = float(packets["owd_us"].min())
    assert path_us <= shortest_us <= path_us + 1_000, (shortest_us, path_us)
