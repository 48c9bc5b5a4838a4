"""The web generator: wire format, server, users and the command lines on loopback."""

import asyncio
import json
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from p4aqm.traffic.endpoints import Endpoint
from p4aqm.traffic.mah import load_mah
from p4aqm.traffic.records import read_records
from p4aqm.traffic.web.browsing import Browser, WebParams
from p4aqm.traffic.web.client import ClientParams, run_client
from p4aqm.traffic.web.protocol import (
    MIN_REQUEST_BYTES,
    ProtocolError,
    decode_header,
    encode_request,
)
from p4aqm.traffic.web.server import ServerParams, WebServer

LOOPBACK = Endpoint("lo", "127.0.0.1", 0)


def test_request_is_exactly_its_size_and_says_the_reply() -> None:
    request = encode_request(231, 1636039)
    assert len(request) == 231
    assert decode_header(request[:MIN_REQUEST_BYTES]) == (231, 1636039)
    with pytest.raises(ProtocolError, match="request_bytes 4"):
        encode_request(4, 10)
    with pytest.raises(ProtocolError, match="request announces 3 bytes"):
        decode_header(b"\0\0\0\3\0\0\0\0")


def fetch_raw(address: tuple[str, int], request_bytes: int, reply_bytes: int) -> int:
    with socket.create_connection(address) as sock:
        sock.sendall(encode_request(request_bytes, reply_bytes))
        received = 0
        while chunk := sock.recv(1 << 16):
            received += len(chunk)
    return received


def test_server_replies_exactly_the_size_asked(tmp_path: Path) -> None:
    sizes = [0, 1, 1460, 100_000, 1_636_039]

    async def scenario() -> dict[str, object]:
        server = WebServer(ServerParams(host_name="s1"), tmp_path / "server.parquet")
        address = await server.start(LOOPBACK)
        for size in sizes:
            assert await asyncio.to_thread(fetch_raw, address, 300, size) == size
        while server.open_connections:  # the last client's close is on its way
            await asyncio.sleep(0.01)
        return await server.stop()

    summary = asyncio.run(scenario())
    assert summary["outcomes"] == {"ok": len(sizes)}
    records, _ = read_records(tmp_path / "server.parquet")
    assert list(records["reply_bytes"]) == sizes
    assert list(records["sent_bytes"]) == sizes
    assert list(records["request_bytes"]) == [300] * len(sizes)
    assert records["tcpi_rtt_us"].notna().all()


def test_users_follow_mah_pages_and_server_stay() -> None:
    servers = ["a", "b", "c"]
    browser = Browser(load_mah(), servers, np.random.default_rng(5))
    visits = [browser.server() for _ in range(2000)]
    changes = [i for i in range(1, len(visits)) if visits[i] != visits[i - 1]]
    # A user moves to another server after each stay, never to the same one, so the mean
    # run of pages on one server is the mean server stay (4.01).
    assert len(visits) / (len(changes) + 1) == pytest.approx(4.01, rel=0.15)
    assert set(visits) == set(servers)
    pages = [browser.page() for _ in range(2000)]
    assert np.mean([len(page) for page in pages]) == pytest.approx(2.838, rel=0.1)
    assert min(obj.request_bytes for page in pages for obj in page) >= MIN_REQUEST_BYTES


def test_residual_start_is_the_think_time_left_in_equilibrium() -> None:
    model = load_mah()
    think = model.think_time_s
    # Renewal theory: the mean time left of a think time in progress is E[T^2] / (2 E[T]).
    expected_s = float(think.probabilities() @ think.values**2) / (2 * think.mean())
    browser = Browser(model, ["a"], np.random.default_rng(6))
    delays = [browser.start_delay_s(WebParams()) for _ in range(10_000)]
    assert np.mean(delays) == pytest.approx(expected_s, rel=0.05)
    assert max(delays) <= think.values[-1]


def test_short_run_of_50_users(tmp_path: Path) -> None:
    params = ClientParams(
        users=50, duration_s=3, host_name="c1", seed=7, start_policy="ramp", ramp_s=0.5
    )

    async def scenario() -> tuple[dict[str, object], dict[str, object]]:
        server = WebServer(ServerParams(host_name="s1"), tmp_path / "server.parquet")
        address, port = await server.start(LOOPBACK)
        client = await run_client(params, [Endpoint("s1", address, port)], tmp_path / "c.parquet")
        while server.open_connections:
            await asyncio.sleep(0.01)
        return client, await server.stop()

    summary, server_summary = asyncio.run(scenario())
    records, metadata = read_records(tmp_path / "c.parquet")
    assert metadata["complete"] and metadata["summary"] == summary
    # Each of the 50 users starts within 0.5 s and fetches at least its first page.
    assert set(records["user"]) == set(range(50))
    assert summary["requests"] == len(records) > 50
    main_objects = records[records["object"] == 0]
    assert main_objects["start_late_ms"].notna().all()
    assert records[records["object"] > 0]["start_late_ms"].isna().all()
    assert summary["late_starts"] == (main_objects["start_late_ms"] > 100).sum()
    # A request still open when the 3 s are up is cut and recorded as such.
    assert (records["outcome"] == "cancelled").sum() <= 2
    records = records[records["outcome"] != "cancelled"]
    assert set(records["outcome"]) == {"ok"}
    assert (records["response_time_us"] >= 0).all()
    assert (records["received_bytes"] == records["reply_bytes"]).all()
    assert records["tcpi_rtt_us"].notna().all() and records["tcpi_total_retrans"].notna().all()
    assert (records["client_host"] == "c1").all() and (records["server_host"] == "s1").all()
    start_ns = metadata["start_ns"]
    assert records["start_ns"].between(start_ns, start_ns + 3.5e9).all()
    # The server saw the same connections, and its records join the client's.
    served, _ = read_records(tmp_path / "server.parquet")
    assert server_summary["outcomes"]["ok"] >= len(records)
    joined = records.merge(served, on=["client_address", "client_port"], suffixes=("", "_s"))
    # One connection per request, but the kernel may give a closed connection's port to
    # a later one: a request's own connection is the one accepted while it was open.
    accepted = joined["start_ns_s"] - joined["start_ns"]
    joined = joined[accepted.between(0, joined["response_time_us"] * 1000)]
    assert len(joined) == len(records) and (joined["outcome_s"] == "ok").all()
    assert (joined["reply_bytes"] == joined["sent_bytes"]).all()


def test_refused_when_no_server_listens(tmp_path: Path, free_port: Callable[..., int]) -> None:
    params = ClientParams(
        users=5, duration_s=0.5, host_name="c1", seed=1, start_policy="ramp", ramp_s=0.1
    )
    nobody = Endpoint("ghost", "127.0.0.1", free_port())
    summary = asyncio.run(run_client(params, [nobody], tmp_path / "c.csv"))
    records, _ = read_records(tmp_path / "c.csv")
    assert set(records["outcome"]) == {"refused"} and summary["outcomes"]["refused"] >= 5
    assert (records["received_bytes"] == 0).all()
    assert records["tcpi_rtt_us"].isna().all()


def test_command_lines_stop_cleanly_on_sigterm(
    tmp_path: Path, free_port: Callable[..., int], module_command: Callable[..., list[str]]
) -> None:
    port = free_port()
    server = subprocess.Popen(
        module_command(
            "p4aqm.traffic.web.server", "--listen", f"127.0.0.1:{port}", "--records",
            tmp_path / "s.parquet", "--host-name", "s1",
        ),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    client = subprocess.Popen(
        module_command(
            "p4aqm.traffic.web.client", "--users", 20, "--servers", f"s1=127.0.0.1:{port}",
            "--duration-s", 60, "--records", tmp_path / "c.parquet", "--host-name", "c1",
            "--seed", 3, "--start-policy", "ramp", "--ramp-s", 0.3,
        ),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(2.5)
    client.send_signal(signal.SIGTERM)
    client_out, client_err = client.communicate(timeout=10)
    server.send_signal(signal.SIGINT)
    server_out, server_err = server.communicate(timeout=10)
    assert (client.returncode, client_err, server.returncode, server_err) == (0, "", 0, "")
    summary = json.loads(client_out)  # the summary is all it prints
    records, _ = read_records(tmp_path / "c.parquet")
    assert summary["requests"] == len(records) > 0
    assert summary["elapsed_s"] < 10
    assert json.loads(server_out)["connections"] == len(read_records(tmp_path / "s.parquet")[0])
