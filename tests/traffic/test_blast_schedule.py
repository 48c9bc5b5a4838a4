"""The UDP blast: start and stop on the shared clock, no burst after a late start."""

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from traffic.blast import BlastParams
from traffic.cbr import SCHEMA, receive, send_stream
from traffic.endpoints import Endpoint
from traffic.records import RecordWriter, read_records

TOLERANCE_NS = 50_000_000


def test_start_and_stop_are_honoured(
    tmp_path: Path, free_port: Callable[..., int], module_command: Callable[..., list[str]]
) -> None:
    port = free_port(socket.SOCK_DGRAM)
    stop, ready = threading.Event(), threading.Event()
    writer = RecordWriter(tmp_path / "r.parquet", SCHEMA, {})
    receiver = threading.Thread(
        target=receive,
        args=(Endpoint("lo", "127.0.0.1", port), writer, stop),
        kwargs={"ready": ready},
    )
    receiver.start()
    assert ready.wait(5)
    # The epoch leaves the interpreter time to start, as a run's shared epoch would.
    epoch_ns = time.time_ns() + 1_500_000_000
    blast = subprocess.run(
        module_command(
            "traffic.blast", "--dest", f"127.0.0.1:{port}", "--epoch-ns", epoch_ns,
            "--start-s", 0.3, "--stop-s", 0.8,
        ),
        capture_output=True, text=True, timeout=10,
    )  # fmt: skip
    time.sleep(0.2)
    stop.set()
    receiver.join(5)
    writer.close({})
    assert (blast.returncode, blast.stderr) == (0, "")
    summary = json.loads(blast.stdout)
    start_ns, stop_ns = epoch_ns + 300_000_000, epoch_ns + 800_000_000
    assert summary["scheduled_start_ns"] == start_ns and summary["scheduled_stop_ns"] == stop_ns
    assert abs(summary["first_send_ns"] - start_ns) < TOLERANCE_NS
    assert stop_ns - TOLERANCE_NS < summary["last_send_ns"] < stop_ns
    # 10 Mbit/s of 1000-byte payloads: 1250 packets/s for 0.5 s.
    assert summary["packets_sent"] == 625 and summary["skipped_slots"] == 0
    records, _ = read_records(tmp_path / "r.parquet")
    assert len(records) == 625 and (records["dscp"] == 0).all()
    assert abs(records["recv_ns"].min() - start_ns) < TOLERANCE_NS
    assert stop_ns - TOLERANCE_NS < records["recv_ns"].max() < stop_ns + TOLERANCE_NS


def test_a_late_start_skips_the_missed_slots_instead_of_bursting(
    free_port: Callable[..., int],
) -> None:
    dest = Endpoint("lo", "127.0.0.1", free_port(socket.SOCK_DGRAM))  # nobody listens
    now_ns = time.time_ns()
    params = BlastParams(epoch_ns=now_ns - 1_000_000_000, start_s=0.5, stop_s=1.2)
    summary = send_stream(params, params.stop_s, dest)
    # 0.5 s already past at 1250 packets/s; the 0.2 s left are sent on schedule.
    assert summary.skipped_slots == pytest.approx(625, abs=15)
    assert summary.packets_sent == pytest.approx(250, abs=15)
    assert summary.first_send_ns - now_ns < TOLERANCE_NS


def test_stop_before_start_is_an_error_naming_the_flags() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "traffic.blast", "--dest", "127.0.0.1:9", "--start-s", "5",
         "--stop-s", "2"],
        capture_output=True, text=True, timeout=10,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == "error: --stop-s 2.0 is not after --start-s 5.0\n"
