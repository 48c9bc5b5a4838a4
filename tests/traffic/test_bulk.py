"""Bulk TCP (p4aqm/traffic/bulk.py) over loopback: both ends' records per flow and
interval, either end sending, connections retried until the listener is up, a flow that
never connects, the end on the run's clock or a signal, and bad flags."""

import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from p4aqm.traffic.records import read_records

INTERVAL_NS = 250_000_000
# For both ends to be up by the epoch: an interpreter importing pyarrow takes about 0.5 s,
# more on a busy machine.
LEAD_NS = 1_500_000_000
ADDRESS = "127.0.0.1"


def end_command(
    command: Callable[..., list[str]], role: str, port: int, records: Path, send: bool,
    epoch_ns: int, duration_s: float, *extra: object,
) -> list[str]:  # fmt: skip
    return command(
        "p4aqm.traffic.bulk", role, "--address", ADDRESS, "--port", port,
        "--send" if send else "--receive", "--epoch-ns", epoch_ns,
        "--duration-s", duration_s, "--interval-s", INTERVAL_NS / 1e9, "--records", records,
        *extra,
    )  # fmt: skip


def run_pair(
    module_command: Callable[..., list[str]],
    tmp_path: Path,
    port: int,
    *,
    connect_sends: bool = True,
    duration_s: float = 1.0,
    flows: int = 1,
    listener_late_s: float = 0.0,
) -> tuple[tuple[pd.DataFrame, dict[str, Any]], tuple[pd.DataFrame, dict[str, Any]], int]:
    """Both ends of `flows` flows; the listening end's records, the connecting end's, and
    the epoch."""
    epoch_ns = time.time_ns() + LEAD_NS
    flags = ("--flows", flows)
    listen = end_command(module_command, "listen", port, tmp_path / "listen.parquet",
                         not connect_sends, epoch_ns, duration_s, *flags)  # fmt: skip
    connect = end_command(module_command, "connect", port, tmp_path / "connect.parquet",
                          connect_sends, epoch_ns, duration_s, *flags)  # fmt: skip
    if listener_late_s:
        connecting = subprocess.Popen(connect)
        time.sleep(LEAD_NS / 1e9 + listener_late_s)
        listening = subprocess.Popen(listen)
    else:
        listening = subprocess.Popen(listen)
        connecting = subprocess.Popen(connect)
    assert connecting.wait(duration_s + 10) == 0
    assert listening.wait(10) == 0
    return (
        read_records(tmp_path / "listen.parquet"),
        read_records(tmp_path / "connect.parquet"),
        epoch_ns,
    )


def test_each_end_records_every_flow_in_every_interval_from_the_epoch(
    tmp_path: Path, free_port: Callable[..., int], module_command: Callable[..., list[str]]
) -> None:
    (received, listen_meta), (sent, connect_meta), epoch_ns = run_pair(
        module_command, tmp_path, free_port(), flows=2
    )
    expected_ends = [epoch_ns + k * INTERVAL_NS for k in range(1, 5)]
    for rows in (received, sent):
        for flow in (0, 1):
            assert rows[rows["flow"] == flow]["end_ns"].tolist() == expected_ends
    assert listen_meta["kind"] == "bulk_receiver" and connect_meta["kind"] == "bulk_sender"
    assert listen_meta["complete"] and connect_meta["complete"]
    # The receiver read what the sender handed to TCP, less what was still in flight.
    assert 0 < received["bytes"].sum() <= sent["bytes"].sum()
    assert received.groupby("flow")["bytes"].sum().min() > 1_000_000
    # The sender's tcp_info at every interval's end; the receiver records none.
    assert (sent["rtt_us"] > 0).all() and (sent["snd_cwnd_bytes"] > 0).all()
    assert (sent["retransmits"] >= 0).all()
    assert received[["retransmits", "snd_cwnd_bytes", "rtt_us"]].isna().all().all()
    summary = connect_meta["summary"]
    assert summary["unconnected"] == []
    for state in summary["flows"].values():
        assert state["attempts"] == 1 and state["connected_ns"] >= epoch_ns


def test_the_listening_end_sends_when_the_connecting_end_receives(
    tmp_path: Path, free_port: Callable[..., int], module_command: Callable[..., list[str]]
) -> None:
    (sent, listen_meta), (received, connect_meta), _ = run_pair(
        module_command, tmp_path, free_port(), connect_sends=False
    )
    assert listen_meta["kind"] == "bulk_sender" and connect_meta["kind"] == "bulk_receiver"
    assert 0 < received["bytes"].sum() <= sent["bytes"].sum()
    assert (sent["rtt_us"] > 0).all()


def test_a_refused_connection_is_retried_until_the_listener_is_up(
    tmp_path: Path, free_port: Callable[..., int], module_command: Callable[..., list[str]]
) -> None:
    (received, _), (_, connect_meta), epoch_ns = run_pair(
        module_command, tmp_path, free_port(), duration_s=1.5, listener_late_s=0.6
    )
    state = connect_meta["summary"]["flows"]["0"]
    assert state["attempts"] > 1 and state["errors"] == ["ECONNREFUSED"]
    assert state["connected_ns"] > epoch_ns + 400_000_000
    # Before it connected the flow's intervals are there, with nothing in them.
    assert received["bytes"].iloc[0] == 0 and received["bytes"].sum() > 0


def test_a_flow_that_never_connects_ends_with_the_run_and_says_so(
    tmp_path: Path, free_port: Callable[..., int], module_command: Callable[..., list[str]]
) -> None:
    epoch_ns = time.time_ns() + 200_000_000
    records = tmp_path / "connect.parquet"
    command = end_command(module_command, "connect", free_port(), records, True, epoch_ns, 0.6)
    assert subprocess.run(command, timeout=10).returncode == 0
    rows, metadata = read_records(records)
    assert rows["bytes"].tolist() == [0, 0, 0]
    assert rows["rtt_us"].isna().all(), "no socket, no tcp_info"
    assert metadata["summary"]["unconnected"] == [0]
    assert metadata["summary"]["flows"]["0"]["errors"] == ["ECONNREFUSED"]


def test_sigterm_ends_both_ends_with_their_records_whole(
    tmp_path: Path, free_port: Callable[..., int], module_command: Callable[..., list[str]]
) -> None:
    epoch_ns = time.time_ns() + LEAD_NS
    port = free_port()
    ends = [
        subprocess.Popen(
            end_command(
                module_command,
                role,
                port,
                tmp_path / f"{role}.parquet",
                role == "connect",
                epoch_ns,
                60,
            )
        )  # fmt: skip
        for role in ("listen", "connect")
    ]
    time.sleep(LEAD_NS / 1e9 + 1.0)
    for end in ends:
        end.send_signal(signal.SIGTERM)
    assert [end.wait(5) for end in ends] == [0, 0]
    for role in ("listen", "connect"):
        rows, metadata = read_records(tmp_path / f"{role}.parquet")
        assert metadata["complete"] and len(rows) >= 3
    assert rows["bytes"].sum() > 0


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--port", "65535", "--flows", "2"], "would use port 65536, past 65535"),
        (["--port", "5201", "--congestion-control", "nosuch"], "--congestion-control: 'nosuch'"),
        (["--port", "5201", "--congestion-control", "Reno!"], "--congestion-control:"),
        (["--port", "5201", "--duration-s", "0"], "--duration-s:"),
        (["--port", "5201", "--address", "192.0.2.1"], "cannot bind 192.0.2.1:5201"),
    ],
)
def test_bad_flags_are_one_line_errors_naming_them(
    tmp_path: Path, module_command: Callable[..., list[str]], flags: list[str], message: str
) -> None:
    base = {"--address": ADDRESS, "--epoch-ns": str(time.time_ns()), "--duration-s": "1",
            "--records": str(tmp_path / "r.parquet")}  # fmt: skip
    given = dict(zip(flags[::2], flags[1::2], strict=True))
    args = [a for k, v in {**base, **given}.items() for a in (k, v)]
    role = "listen" if "--address" in given else "connect"
    done = subprocess.run(
        module_command("p4aqm.traffic.bulk", role, "--send", *args),
        capture_output=True, text=True, timeout=10,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ") and message in done.stderr
    assert "Traceback" not in done.stderr


def test_without_an_epoch_an_end_says_ready_and_takes_it_from_stdin(
    tmp_path: Path, free_port: Callable[..., int], module_command: Callable[..., list[str]]
) -> None:
    command = module_command(
        "p4aqm.traffic.bulk", "connect", "--address", ADDRESS, "--port", free_port(), "--send",
        "--duration-s", 0.5, "--interval-s", INTERVAL_NS / 1e9,
        "--records", tmp_path / "r.parquet",
    )  # fmt: skip
    end = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert end.stdout is not None and end.stdout.readline() == "ready\n"
    epoch_ns = time.time_ns() + 100_000_000
    end.communicate(f"{epoch_ns}\n", timeout=10)
    assert end.returncode == 0
    rows, metadata = read_records(tmp_path / "r.parquet")
    assert metadata["epoch_ns"] == epoch_ns
    assert rows["end_ns"].tolist() == [epoch_ns + INTERVAL_NS, epoch_ns + 2 * INTERVAL_NS]


@pytest.mark.parametrize(
    ("stdin", "message"),
    [("", "stdin: closed before the epoch came"), ("soon\n", "stdin: 'soon' is not an epoch")],
)
def test_a_bad_epoch_on_stdin_is_a_one_line_error(
    tmp_path: Path, module_command: Callable[..., list[str]], stdin: str, message: str
) -> None:
    command = module_command(
        "p4aqm.traffic.bulk", "connect", "--address", ADDRESS, "--port", 5201, "--send",
        "--duration-s", 1, "--records", tmp_path / "r.parquet",
    )  # fmt: skip
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=10)
    assert done.returncode == 2 and done.stdout == "ready\n"
    assert done.stderr.startswith("error: ") and message in done.stderr
