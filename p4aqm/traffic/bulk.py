"""Bulk TCP (the FTP flows of Parris et al.) through iperf3, one process pair per flow.

iperf3 serves here because a bulk flow needs nothing but a greedy sender, and iperf3
reports each interval's bytes on both ends and the sender's retransmissions, congestion
window and smoothed RTT, in JSON. One iperf3 process per flow (not -P) gives each flow
its own report, so goodput over time is per flow. Goodput is what the receiver got in
each interval (with --get-server-output the client's report holds the server's), the
sender's counters are joined to it by interval end time.

The web and CBR generators are our own: iperf3 has no request/response mode with a
reply size per connection (HTTP/1.0 with Mah's sizes) nor per-connection TCP_INFO, and
its UDP mode reports loss and jitter per interval, not each packet's one-way delay; for
irtt, see traffic.cbr.
"""

import json
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field

IPERF3 = "/usr/bin/iperf3"
RCV_TIMEOUT_MARGIN_S = 60


class BulkFlow(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    flow: int = Field(ge=0)
    server_address: str = Field(min_length=1)
    port: int = Field(ge=1, le=65535)
    duration_s: int = Field(ge=1, description="iperf3 -t takes whole seconds")
    interval_s: float = Field(0.5, ge=0.1, description="iperf3's shortest interval is 0.1 s")
    # None: the host's own (no -C). iperf3 sets -C after connecting, over what a tuning
    # rule chose as the connection opened.
    congestion_control: str | None = Field("cubic", pattern=r"^[a-z0-9_]+$")
    reverse: bool = Field(False, description="the server sends (iperf3 -R)")
    rate_bps: float | None = Field(None, gt=0, description="None: as fast as TCP allows")


def server_command(flow: BulkFlow, report: Path) -> list[str]:
    """iperf3 server for one flow: exits after its test (-1), report written to `report`."""
    return [
        IPERF3, "-s", "-1", "-J",
        "-B", flow.server_address,
        "-p", str(flow.port),
        # The server reports at its own interval (1 s by default), not the client's.
        "-i", str(flow.interval_s),
        # A flow starved for longer than iperf3's default 120 s (RTO backoff, with hundreds
        # of flows on one bottleneck) is still a flow: the server waits out the run.
        "--rcv-timeout", str(1000 * (flow.duration_s + RCV_TIMEOUT_MARGIN_S)),
        "--logfile", str(report),
    ]  # fmt: skip


def client_command(flow: BulkFlow, report: Path) -> list[str]:
    """iperf3 client for one flow; its report includes the server's (--get-server-output)."""
    command = [
        IPERF3, "-c", flow.server_address, "-J", "--get-server-output",
        "-p", str(flow.port),
        "-t", str(flow.duration_s),
        "-i", str(flow.interval_s),
        "--logfile", str(report),
    ]  # fmt: skip
    if flow.congestion_control is not None:
        command += ["-C", flow.congestion_control]
    if flow.reverse:
        command.append("-R")
    if flow.rate_bps is not None:
        command += ["-b", str(round(flow.rate_bps))]
    return command


# iperf3's errors for a test cut short by a signal: the report keeps its intervals so far.
CUT_SHORT = ("the client has terminated", "the server has terminated")


def _load(report: Path) -> dict[str, Any]:
    try:
        return json.loads(report.read_text())
    except OSError as error:
        raise ValueError(f"{report}: cannot read the iperf3 report: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{report}:{error.lineno}: not JSON: {error.msg}") from None


def _has_receiver(data: dict[str, Any]) -> bool:
    intervals = data.get("intervals") or []
    return "server_output_json" in data or bool(intervals and not intervals[0]["sum"]["sender"])


class FlowFailed(ValueError):
    """A flow whose iperf3 failed before the run's end and left no receiver's report: its
    server's is empty. Under heavy loss this was a starved flow: iperf3's server ends a
    test that received nothing for its --rcv-timeout, 120 s by default (server_command now
    gives it the whole run)."""


# (server address, server port, client address, client port) of a flow's data stream.
Connection = tuple[str, int, str, int]


class FlowReport(NamedTuple):
    """A flow's per-interval records (read_report's) and what places them in time."""

    intervals: pd.DataFrame
    # iperf3's start timestamp: when the control connection opened, in whole seconds.
    # The intervals count from the test's start, after the parameters are exchanged and
    # the data stream connects: under heavy loss, handshakes waiting out retransmission
    # timeouts, seconds to tens of seconds later (p4aqm/report/load.py places them from
    # a TCP trace of the data stream where there is one).
    start_s: float
    data_connection: Connection | None


def data_connection(data: dict[str, Any]) -> Connection | None:
    """The data stream of a report, seen from the server: its own report's first
    connected stream (in a client's, its copy of the server's, or its own reversed)."""
    server = data.get("server_output_json", data)
    start = server.get("start") or {}
    connected = start.get("connected") or []
    if not connected:
        return None
    c = connected[0]
    if "connecting_to" in start:  # the client's own view: the server is its remote end
        return (c["remote_host"], c["remote_port"], c["local_host"], c["local_port"])
    return (c["local_host"], c["local_port"], c["remote_host"], c["remote_port"])


def read_flow(client: Path, server: Path, flow: int) -> FlowReport:
    """A flow's report: from the client's, or for a flow cut short, whose client report
    lacks the receiver's side, from the server's (receiver only). FlowFailed if neither
    has it. An empty client report is one cut short: a client killed while it still
    waited to tell its server it was interrupted writes nothing."""
    killed = client.exists() and client.stat().st_size == 0
    data = {} if killed else _load(client)
    path = client
    if not _has_receiver(data):
        served = _load(server) if server.exists() and server.stat().st_size else {}
        if not served.get("intervals"):
            sent = sum(i["sum"]["bytes"] for i in data.get("intervals") or [])
            error = served.get("error") or data.get("error", "no error")
            said = "its client's report is empty" if killed else f"its sender wrote {sent} bytes"
            raise FlowFailed(f"{client}: no receiver's report (iperf3: {error}); {said}")
        data, path = served, server
    return FlowReport(
        parse_report(data, flow, str(path)),
        data["start"]["timestamp"]["timesecs"],
        data_connection(data),
    )


def read_report(report: Path, flow: int) -> pd.DataFrame:
    """Per-interval records of a client report: flow, t_s (interval end, from the test's
    start), goodput_bps and bytes (receiver), retransmits, snd_cwnd_bytes and rtt_us
    (sender; missing if the report lacks the sender's side)."""
    return parse_report(_load(report), flow, str(report))


def parse_report(data: dict[str, Any], flow: int, source: str = "iperf3 report") -> pd.DataFrame:
    if "error" in data and not str(data["error"]).endswith(CUT_SHORT):
        raise ValueError(f"{source}: iperf3 failed: {data['error']}")
    sides = [data] + ([data["server_output_json"]] if "server_output_json" in data else [])
    by_role: dict[bool, list[dict[str, Any]]] = {}
    for side in sides:
        intervals = side.get("intervals", [])
        if intervals:
            if len(intervals[0]["streams"]) != 1:
                raise ValueError(
                    f"{source}: {len(intervals[0]['streams'])} streams; run one iperf3 per flow"
                )
            by_role[intervals[0]["sum"]["sender"]] = intervals
    if False not in by_role:
        raise ValueError(
            f"{source}: no receiver intervals; the client needs --get-server-output "
            "unless it is the receiver (-R)"
        )
    receiver = pd.DataFrame(
        {
            "t_s": [i["sum"]["end"] for i in by_role[False]],
            "goodput_bps": [i["sum"]["bits_per_second"] for i in by_role[False]],
            "bytes": [i["sum"]["bytes"] for i in by_role[False]],
        }
    )
    receiver.insert(0, "flow", flow)
    if True not in by_role:
        return receiver
    sender = pd.DataFrame(
        {
            "sender_t_s": [i["sum"]["end"] for i in by_role[True]],
            "retransmits": [i["streams"][0].get("retransmits") for i in by_role[True]],
            "snd_cwnd_bytes": [i["streams"][0].get("snd_cwnd") for i in by_role[True]],
            "rtt_us": [i["streams"][0].get("rtt") for i in by_role[True]],
        }
    )
    # The two ends cut their intervals at slightly different moments (each from its own
    # start); pair each receiver interval with the sender interval ending nearest to it.
    interval_s = by_role[True][0]["sum"]["seconds"]
    joined = pd.merge_asof(
        receiver,
        sender,
        left_on="t_s",
        right_on="sender_t_s",
        direction="nearest",
        tolerance=interval_s / 2,
    )
    return joined.drop(columns="sender_t_s")
