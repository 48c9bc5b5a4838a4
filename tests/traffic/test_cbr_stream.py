"""CBR: loss, delay and jitter computed exactly, and real streams over loopback."""

import json
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from p4aqm.traffic.cbr import SCHEMA, CbrParams, receive, send_stream, summarize
from p4aqm.traffic.endpoints import Endpoint
from p4aqm.traffic.records import RecordWriter, read_records


def packets(flow_id: int, seqs: list[int], transit_ns: list[int]) -> pd.DataFrame:
    send_ns = [1_000_000_000 + seq * 38_000_000 for seq in seqs]
    return pd.DataFrame(
        {
            "flow_id": flow_id,
            "seq": seqs,
            "send_ns": send_ns,
            "recv_ns": [s + t for s, t in zip(send_ns, transit_ns, strict=True)],
            "owd_us": [t / 1e3 for t in transit_ns],
        }
    )


def test_loss_counts_gaps_and_packets_after_the_last_received() -> None:
    seqs = [s for s in range(20) if s not in (3, 7, 8)] + [5]  # seq 5 arrives twice
    records = packets(1, seqs, [20_000] * len(seqs))
    flows = summarize(records, {1: 22, 2: 10}).set_index("flow_id")
    assert flows.loc[1, ["expected", "received", "lost", "duplicates"]].tolist() == [22, 17, 5, 1]
    assert flows.loc[1, "loss_fraction"] == pytest.approx(5 / 22)
    assert flows.loc[2, ["expected", "received", "lost"]].tolist() == [10, 0, 10]
    # Without the sender's count, the highest sequence number received is the end.
    assert summarize(records).set_index("flow_id").loc[1, "lost"] == 3


def test_delay_and_rfc3550_jitter_by_hand() -> None:
    # Sent 1 us apart with transit times 10, 15, 12 us: seq 2 arrives before seq 1.
    records = pd.DataFrame(
        {
            "flow_id": [1, 1, 1],
            "seq": [0, 1, 2],
            "send_ns": [0, 1_000, 2_000],
            "recv_ns": [10_000, 16_000, 14_000],
            "owd_us": [10.0, 15.0, 12.0],
        }
    )
    flow = summarize(records).iloc[0]
    # J += (|D| - J) / 16 in arrival order (seq 0, 2, 1): D = 12 - 10 = 2, then 15 - 12 = 3.
    assert flow["jitter_us"] == pytest.approx(2 / 16 + (3 - 2 / 16) / 16)
    assert flow["owd_mean_us"] == pytest.approx(37 / 3)
    assert flow["owd_max_us"] == 15.0
    assert flow["lost"] == 0


def run_receiver(
    port: int, path: Path
) -> tuple[threading.Thread, threading.Event, dict[str, object]]:
    stop, ready, result = threading.Event(), threading.Event(), {}
    writer = RecordWriter(path, SCHEMA, {"kind": "test"})

    def body() -> None:
        result["summary"] = receive(Endpoint("lo", "127.0.0.1", port), writer, stop, ready=ready)
        writer.close({})

    thread = threading.Thread(target=body)
    thread.start()
    assert ready.wait(5)
    return thread, stop, result


def test_loopback_stream_at_high_rate_loses_nothing(
    tmp_path: Path, free_port: Callable[..., int]
) -> None:
    port = free_port(socket.SOCK_DGRAM)
    thread, stop, result = run_receiver(port, tmp_path / "r.parquet")
    params = CbrParams(rate_bps=20e6, flow_id=9, duration_s=1.0)
    sent = send_stream(params, params.duration_s, Endpoint("lo", "127.0.0.1", port))
    time.sleep(0.3)
    stop.set()
    thread.join(5)
    assert sent.packets_sent == 2500 and sent.send_errors == 0 and sent.skipped_slots == 0
    assert sent.last_send_ns - sent.first_send_ns == pytest.approx(1e9 - 400_000, abs=20e6)
    records, _ = read_records(tmp_path / "r.parquet")
    flow = summarize(records, {9: sent.packets_sent}).iloc[0]
    assert (flow["expected"], flow["received"], flow["lost"]) == (2500, 2500, 0)
    assert result["summary"].receive_buffer_drops == 0
    assert (records["dscp"] == 34).all() and (records["payload_bytes"] == 1000).all()
    assert (records["owd_us"] > 0).all() and flow["owd_p50_us"] < 10_000


def jittered_gaps_ms(tmp_path: Path, port: int, jitter_percent: float, seed: int) -> pd.Series:
    """The send-time gaps (ms) of 2 s of a 100-packet/s stream, as the receiver recorded."""
    thread, stop, _ = run_receiver(port, tmp_path / f"j{jitter_percent}-{seed}.parquet")
    params = CbrParams(rate_bps=800_000, duration_s=2.0, jitter_percent=jitter_percent, seed=seed)
    sent = send_stream(params, params.duration_s, Endpoint("lo", "127.0.0.1", port))
    time.sleep(0.3)
    stop.set()
    thread.join(5)
    assert sent.packets_sent == 200
    records, _ = read_records(tmp_path / f"j{jitter_percent}-{seed}.parquet")
    return records.sort_values("seq")["send_ns"].diff().dropna() / 1e6


def test_jitter_spreads_the_gaps_but_keeps_rate_and_order(
    tmp_path: Path, free_port: Callable[..., int]
) -> None:
    """10 ms apart; with 50 % jitter each packet leaves up to 5 ms after its slot, so gaps
    spread over 5-15 ms, their mean stays 10 ms and no packet overtakes the next."""
    port = free_port(socket.SOCK_DGRAM)
    paced = jittered_gaps_ms(tmp_path, port, 0, 1)
    jittered = jittered_gaps_ms(tmp_path, port, 50, 1)
    # Quantiles, not extremes: a late wake-up on a busy machine moves single gaps.
    spread = {
        name: g.quantile(0.75) - g.quantile(0.25)
        for name, g in (("paced", paced), ("jittered", jittered))
    }
    assert spread["paced"] < 0.5 < 1.5 < spread["jittered"], spread
    assert jittered.mean() == pytest.approx(10, abs=0.2)
    # Gaps of 10 ms + (u' - u) * 5 ms: triangular on 5-15 ms (5th and 95th percentiles
    # 6.6 and 13.4 ms).
    assert jittered.quantile(0.05) > 5 and jittered.quantile(0.95) < 15, jittered.describe()
    # Another seed draws other gaps.
    assert not jittered.round().equals(jittered_gaps_ms(tmp_path, port, 50, 2).round())


def test_sender_command_stops_on_sigterm_with_its_summary(
    tmp_path: Path, free_port: Callable[..., int], module_command: Callable[..., list[str]]
) -> None:
    port = free_port(socket.SOCK_DGRAM)
    summary_path = tmp_path / "send.json"
    sender = subprocess.Popen(
        module_command(
            "p4aqm.traffic.cbr", "send", "--dest", f"127.0.0.1:{port}", "--duration-s", 60,
            "--flow-id", 4, "--summary", summary_path,
        ),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(1.5)
    sender.send_signal(signal.SIGTERM)
    out, err = sender.communicate(timeout=5)
    assert (sender.returncode, err) == (0, "")
    summary = json.loads(out)
    assert summary == json.loads(summary_path.read_text())
    assert summary["flow_id"] == 4 and summary["rate_bps"] == 210_000
    # 26.25 packets/s for the second or so between start-up and the signal.
    assert 10 <= summary["packets_sent"] <= 40


def test_killed_receiver_keeps_its_flushed_packets(
    tmp_path: Path, free_port: Callable[..., int], module_command: Callable[..., list[str]]
) -> None:
    port = free_port(socket.SOCK_DGRAM)
    path = tmp_path / "r.parquet"
    receiver = subprocess.Popen(
        module_command(
            "p4aqm.traffic.cbr", "recv", "--listen", f"127.0.0.1:{port}", "--records", path,
            "--flush-interval-s", 0.1,
        )
    )  # fmt: skip
    time.sleep(1.0)  # the interpreter and numpy/pandas start
    params = CbrParams(rate_bps=400_000, flow_id=1, duration_s=1.0)
    sent = send_stream(params, params.duration_s, Endpoint("lo", "127.0.0.1", port))
    time.sleep(0.3)
    receiver.kill()
    receiver.wait(5)
    records, metadata = read_records(path)
    assert metadata["complete"] is False
    # Idle since the stream ended, the receiver flushed everything before the kill.
    assert len(records) == sent.packets_sent == 50
