"""A UDP blast, as the experiments send it (`cbr send` with the blast's rate, payload and
DSCP): start and stop on the shared clock, no burst after a late start."""

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from p4aqm.traffic.cbr import SCHEMA, receive
from p4aqm.traffic.endpoints import Endpoint
from p4aqm.traffic.records import RecordWriter, read_records

TOLERANCE_NS = 50_000_000
# Parris et al.'s blast: 10 Mbit/s of 1 KB payloads (1250 packets/s), unmarked.
BLAST_FLAGS = ("--rate-bps", 10e6, "--payload-bytes", 1000, "--dscp", 0)
INTERVAL_NS = 800_000


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
            "p4aqm.traffic.cbr", "send", "--dest", f"127.0.0.1:{port}", *BLAST_FLAGS,
            "--epoch-ns", epoch_ns, "--start-s", 0.3, "--duration-s", 0.5,
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
    # 1250 packets/s for 0.5 s.
    assert summary["packets_sent"] == 625 and summary["skipped_slots"] == 0
    records, _ = read_records(tmp_path / "r.parquet")
    assert len(records) == 625 and (records["dscp"] == 0).all()
    assert abs(records["recv_ns"].min() - start_ns) < TOLERANCE_NS
    assert stop_ns - TOLERANCE_NS < records["recv_ns"].max() < stop_ns + TOLERANCE_NS


def test_a_late_start_skips_the_missed_slots_instead_of_bursting(
    free_port: Callable[..., int], module_command: Callable[..., list[str]]
) -> None:
    dest = f"127.0.0.1:{free_port(socket.SOCK_DGRAM)}"  # nobody listens
    # The start is 0.5 s past before the interpreter even starts; the stop leaves it 3.5 s
    # more, for a slow start on a loaded machine.
    epoch_ns = time.time_ns() - 1_000_000_000
    blast = subprocess.run(
        module_command(
            "p4aqm.traffic.cbr", "send", "--dest", dest, *BLAST_FLAGS,
            "--epoch-ns", epoch_ns, "--start-s", 0.5, "--duration-s", 4.0,
        ),
        capture_output=True, text=True, timeout=10,
    )  # fmt: skip
    assert (blast.returncode, blast.stderr) == (0, "")
    summary = json.loads(blast.stdout)
    skipped = summary["skipped_slots"]
    # At least the 0.5 s known to be past at 1250 packets/s are skipped, not sent...
    assert skipped >= 625
    # ... the sender starts at the current slot, and sends the rest on schedule.
    first_due_ns = summary["scheduled_start_ns"] + skipped * INTERVAL_NS
    assert abs(summary["first_send_ns"] - first_due_ns) < TOLERANCE_NS
    assert skipped + summary["packets_sent"] == pytest.approx(5000, abs=15)


def test_an_empty_window_is_an_error_naming_the_flag() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "p4aqm.traffic.cbr", "send", "--dest", "127.0.0.1:9",
         "--start-s", "5", "--duration-s", "0"],
        capture_output=True, text=True, timeout=10,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == "error: --duration-s: Input should be greater than 0\n"
