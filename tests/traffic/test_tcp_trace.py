"""The per-flow TCP tracer: its last record of a connection matches the kernel's own
counters of that connection (getsockopt TCP_INFO at the same moment), on loopback and
across the dumbbell; bad flags get an error naming them."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from p4aqm.topology import Dumbbell, DumbbellSpec
from p4aqm.traffic import tcp_info
from p4aqm.traffic.records import read_records
from p4aqm.traffic.tcp_trace import SCHEMA
from programs import CompiledProgram

PERIOD_MS = 5
TCP_ESTABLISHED = 1
TRANSFER_BYTES = 2_000_000
# Counters that do not move once every byte is acknowledged and the connection idles.
SETTLED = {
    "bytes_acked": "bytes_acked",
    "bytes_sent": "bytes_sent",
    "bytes_received": "bytes_received",
    "total_retrans_pkts": "total_retrans",
    "snd_cwnd_pkts": "snd_cwnd",
    "snd_ssthresh_pkts": "snd_ssthresh",
    "snd_mss_bytes": "snd_mss",
    "srtt_us": "rtt",
    "min_rtt_us": "min_rtt",
}
# Runs in the sending host: connect, send, wait until all is acknowledged, print the
# socket's struct tcp_info (as the tracer's field names) and its local port, idle, close.
SENDER = """
import json, socket, struct, sys, time
from p4aqm.traffic import tcp_info
sock = socket.create_connection((sys.argv[1], int(sys.argv[2])))
sock.sendall(b"x" * int(sys.argv[3]))
def info():
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, tcp_info.FULL.size)
    return dict(zip(tcp_info.FULL_NAMES, tcp_info.FULL.unpack(raw)))
while info()["unacked"]:
    time.sleep(0.01)
time.sleep(0.05)
print(json.dumps({"sport": sock.getsockname()[1], **info()}), flush=True)
time.sleep(0.2)
sock.close()
"""
# Runs in the receiving host: accept one connection and read it to its end.
SINK = """
import socket, sys
server = socket.create_server(("0.0.0.0", int(sys.argv[1])))
connection, _ = server.accept()
while connection.recv(1 << 16):
    pass
"""


def tracer(out: Path, port: int) -> list[str]:
    """The tracer's command: this port's connections every PERIOD_MS into out."""
    flags = ("--out", out, "--period-ms", PERIOD_MS, "--port", port)
    return [sys.executable, "-m", "p4aqm.traffic.tcp_trace", *map(str, flags)]


def stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err


def last_record(records: pd.DataFrame, sport: int, dport: int) -> pd.Series:
    flow = records[(records["sport"] == sport) & (records["dport"] == dport)]
    assert len(flow), f"no record of {sport} -> {dport}"
    return flow.sort_values("realtime_ns").iloc[-1]


def check_against_kernel(records: pd.DataFrame, kernel: dict, port: int) -> None:
    sender = last_record(records, kernel["sport"], port)
    for column, field in SETTLED.items():
        assert sender[column] == kernel[field], column
    # The SYN's sequence number is acknowledged too; nothing else but the data was.
    assert sender["bytes_acked"] == TRANSFER_BYTES + 1
    # Its last record while established: after that the sender's FIN counts as a byte.
    established = records[records["state"] == TCP_ESTABLISHED]
    receiver = last_record(established, port, kernel["sport"])
    assert receiver["bytes_received"] == TRANSFER_BYTES
    assert sender["congestion_control"] == receiver["congestion_control"] != ""
    # Sampled every period: rows of the flow about PERIOD_MS apart.
    times = records[records["sport"] == kernel["sport"]]["realtime_ns"].diff().dropna()
    assert times.median() == pytest.approx(PERIOD_MS * 1e6, rel=0.2)


def test_loopback_transfer_matches_the_kernel(tmp_path: Path, free_port) -> None:  # noqa: ANN001
    port = free_port()
    out = tmp_path / "trace.parquet"
    with socket.create_server(("127.0.0.1", port)) as server:
        trace = subprocess.Popen(
            tracer(out, port), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert trace.stdout.readline().startswith("tracing every"), "the tracer did not start"
        sender = subprocess.Popen(
            [sys.executable, "-c", SENDER, "127.0.0.1", str(port), str(TRANSFER_BYTES)],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        accepted, _ = server.accept()
        with accepted:
            received = 0
            while received < TRANSFER_BYTES:
                received += len(accepted.recv(1 << 16))
            kernel = json.loads(sender.stdout.readline())
            sender.wait(timeout=30)
        stop(trace)
    records, metadata = read_records(out)
    check_against_kernel(records, kernel, port)
    assert metadata["summary"]["samples"] > 0
    assert list(records.columns) == SCHEMA.names


@pytest.mark.skipif(os.geteuid() != 0, reason="the dumbbell needs root (namespaces, veths)")
def test_dumbbell_transfer_matches_the_kernel(l3_program: CompiledProgram, tmp_path: Path) -> None:
    spec = DumbbellSpec(
        build_dir=l3_program.json_path.parent,
        run_dir=tmp_path / "run",
        bottleneck_rate_bps=10_000_000,
        name_prefix="p4t",
    )
    port = 9300
    with Dumbbell(spec) as net:
        client, server = net.clients()[0], net.servers()[0]
        sink = net.host(server).popen([sys.executable, "-c", SINK, str(port)])
        time.sleep(0.5)
        traces = {h: tmp_path / f"{h}.parquet" for h in (client, server)}
        tracers = [
            net.host(h).popen(
                tracer(path, port), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
            )
            for h, path in traces.items()
        ]
        for process in tracers:
            assert process.stdout.readline().startswith("tracing every")
        sender = net.host(client).popen(
            [sys.executable, "-c", SENDER, net.ip(server), str(port), str(TRANSFER_BYTES)],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        kernel = json.loads(sender.communicate(timeout=60)[0])
        for process in tracers:
            stop(process)
        sink.wait(timeout=10)
    records = pd.concat([read_records(path)[0] for path in traces.values()])
    check_against_kernel(records, kernel, port)
    # Each host sees its own end only.
    client_records = read_records(traces[client])[0]
    assert set(client_records["sport"]) == {kernel["sport"]}


def run_tracer(*flags: object) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "p4aqm.traffic.tcp_trace", *map(str, flags)]
    return subprocess.run(command, capture_output=True, text=True, timeout=30)


def test_bad_flags_are_named(tmp_path: Path) -> None:
    for flags, named in (
        (["--period-ms", "0"], "--period-ms 0"),
        (["--port", "70000"], "--port 70000"),
    ):
        done = run_tracer("--out", tmp_path / "t.parquet", *flags)
        assert done.returncode == 2 and named in done.stderr, done.stderr
    missing = tmp_path / "no" / "t.parquet"
    done = run_tracer("--out", missing, "--stop-after-s", "0.1")
    assert done.returncode == 2 and str(missing) in done.stderr, done.stderr
    assert tcp_info.FULL.size == 232
