"""Bulk TCP through iperf3: the command lines, and per-interval records from its JSON."""

import json
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError

from p4aqm.traffic.bulk import (
    BulkFlow,
    FlowFailed,
    client_command,
    parse_report,
    read_flow,
    read_report,
    server_command,
)

# iperf3 3.12 on loopback, 2 s at 20 Mbit/s, 0.5 s intervals, with --get-server-output.
SAMPLE = Path(__file__).parent / "data" / "iperf3_loopback_2s.json"


def test_captured_report_gives_goodput_over_time() -> None:
    records = read_report(SAMPLE, flow=3)
    assert list(records.columns) == [
        "flow", "t_s", "goodput_bps", "bytes", "retransmits", "snd_cwnd_bytes", "rtt_us",
    ]  # fmt: skip
    assert len(records) == 4 and (records["flow"] == 3).all()
    assert records["t_s"].tolist() == pytest.approx([0.5, 1.0, 1.5, 2.0], abs=0.01)
    # The receiver's bytes, not the sender's: the server's first interval, 1310720 bytes.
    assert records["bytes"].iloc[0] == 1310720
    assert records["goodput_bps"].mean() == pytest.approx(20e6, rel=0.1)
    assert (records["retransmits"] == 0).all()
    assert records["snd_cwnd_bytes"].notna().all() and (records["rtt_us"] > 0).all()


def test_flow_over_loopback_with_the_built_commands(
    tmp_path: Path, free_port: Callable[..., int]
) -> None:
    flow = BulkFlow(
        flow=1, server_address="127.0.0.1", port=free_port(), duration_s=1, reverse=True,
        rate_bps=10e6,
    )  # fmt: skip
    server = subprocess.Popen(server_command(flow, tmp_path / "server.json"))
    time.sleep(0.3)
    client = subprocess.run(client_command(flow, tmp_path / "client.json"), timeout=10)
    server.wait(5)
    assert (client.returncode, server.returncode) == (0, 0)
    # Reversed, the client is the receiver and the server's report the sender's.
    records = read_report(tmp_path / "client.json", flow=1)
    assert len(records) == 2
    assert records["goodput_bps"].mean() == pytest.approx(10e6, rel=0.2)
    assert records["rtt_us"].notna().all()


def test_command_lines() -> None:
    flow = BulkFlow(flow=2, server_address="10.0.1.2", port=5202, duration_s=90)
    command = client_command(flow, Path("c.json"))
    assert command[:2] == ["/usr/bin/iperf3", "-c"]
    for option, value in (("-t", "90"), ("-i", "0.5"), ("-C", "cubic"), ("-p", "5202")):
        assert command[command.index(option) + 1] == value
    assert "-J" in command and "--get-server-output" in command and "-R" not in command
    server = server_command(flow, Path("s.json"))
    assert server[server.index("-B") + 1] == "10.0.1.2" and "-1" in server
    # Without a congestion control of its own, iperf3 leaves the host's (or a tuning
    # rule's, which -C after the connect would override).
    unset = flow.model_copy(update={"congestion_control": None})
    assert "-C" not in client_command(unset, Path("c.json"))
    # A starved flow's server waits out the run (90 s) and a minute, not iperf3's 120 s.
    assert server[server.index("--rcv-timeout") + 1] == "150000"


def test_bad_reports_and_flows_are_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="iperf3 failed: unable to connect"):
        parse_report({"error": "unable to connect to server"}, 1)
    broken = tmp_path / "broken.json"
    broken.write_text('{"start": {}\n,,')
    with pytest.raises(ValueError, match=f"^{broken}:2: not JSON"):
        read_report(broken, 1)
    with pytest.raises(ValueError, match="cannot read"):
        read_report(tmp_path / "none.json", 1)
    without_server = json.loads(SAMPLE.read_text())
    del without_server["server_output_json"]
    with pytest.raises(ValueError, match="--get-server-output"):
        parse_report(without_server, 1)
    with pytest.raises(ValidationError, match="duration_s"):
        BulkFlow(flow=1, server_address="h", port=1, duration_s=2.5)


def test_a_flow_cut_short_keeps_its_receivers_intervals(
    tmp_path: Path, free_port: Callable[..., int]
) -> None:
    """Interrupted (as a point interrupts a flow still closing after its grace), the client
    reports only its own side; the server's report gives what was received so far."""
    flow = BulkFlow(flow=4, server_address="127.0.0.1", port=free_port(), duration_s=30,
                    rate_bps=4e6)  # fmt: skip
    client_report, server_report = tmp_path / "flow4.json", tmp_path / "flow4-server.json"
    server = subprocess.Popen(server_command(flow, server_report))
    time.sleep(0.3)
    client = subprocess.Popen(client_command(flow, client_report))
    time.sleep(2.2)
    client.send_signal(signal.SIGINT)
    client.wait(timeout=10)
    server.wait(timeout=10)
    assert "terminated" in json.loads(client_report.read_text())["error"]
    records, start_s, stream = read_flow(client_report, server_report, flow=4)
    served = json.loads(server_report.read_text())["start"]
    assert start_s == served["timestamp"]["timesecs"]
    assert stream == (
        "127.0.0.1", flow.port, "127.0.0.1", served["connected"][0]["remote_port"]
    )  # fmt: skip
    assert 3 <= len(records) <= 5 and (records["flow"] == 4).all()
    # 4 Mbit/s for about 2 s: about a megabyte received, in receiver intervals only.
    assert records["bytes"].sum() == pytest.approx(4e6 / 8 * 2.2, rel=0.3)
    assert "retransmits" not in records
    # Without the server's report (none, or empty: a server that gave up on a starved
    # flow) the client's alone has no receiver side: the flow failed, with what it sent.
    server_report.write_text("")
    with pytest.raises(FlowFailed, match=r"no receiver's report \(iperf3: interrupt"):
        read_flow(client_report, server_report, flow=4)
    server_report.unlink()
    with pytest.raises(FlowFailed, match="its sender wrote [1-9][0-9]* bytes"):
        read_flow(client_report, server_report, flow=4)


def test_an_empty_client_report_falls_back_to_the_server_s(tmp_path: Path) -> None:
    """A client killed while it still told its server it was interrupted writes nothing
    (seen in the Parris et al. rerun); its server's report holds what was received."""
    client, server = tmp_path / "flow7.json", tmp_path / "flow7-server.json"
    client.write_text("")
    served = json.loads(SAMPLE.read_text())["server_output_json"]
    server.write_text(json.dumps(served))
    records, start_s, stream = read_flow(client, server, flow=7)
    assert records["bytes"].iloc[0] == 1310720 and (records["flow"] == 7).all()
    assert start_s == served["start"]["timestamp"]["timesecs"]
    assert stream is not None and stream[1] == served["start"]["connected"][0]["local_port"]
    server.write_text("")
    with pytest.raises(FlowFailed, match="its client's report is empty"):
        read_flow(client, server, flow=7)
    client.unlink()
    with pytest.raises(ValueError, match="flow7.json: cannot read the iperf3 report"):
        read_flow(client, server, flow=7)
