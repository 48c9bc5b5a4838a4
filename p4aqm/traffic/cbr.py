"""Constant bit rate UDP, as the ProShare flows of Parris et al.: a sender, a receiver that
records every packet, and the loss, one-way delay and jitter of what was received.

    python -m p4aqm.traffic.cbr send --dest ADDR:PORT --duration-s S [--flow-id 0] [--rate-bps ...]
    python -m p4aqm.traffic.cbr recv --listen ADDR:PORT --records FILE [--duration-s S]

Defaults: 210 kbit/s per flow, the rate the study gives for ProShare. The study does not
give ProShare's packet size; we send 1000-byte payloads, the size it gives for its UDP
blast ("10 Mbps, 1 KB"), i.e. 26.25 packets/s. rate_bps counts UDP payload bits, what the
application emits; the summary also gives the IP-level rate. DSCP 34 (AF41, "multimedia
conferencing" in RFC 4594) marks the packets for a class-based classifier such as CBT.

Each packet starts with the flow id (u32), a sequence number (u64, counting the packets
sent) and the send time (u64, CLOCK_REALTIME ns just before sendto); the rest is zeros.
All Mininet hosts share one kernel clock, so receive time minus send time is the one-way
delay without clock offset. The receiver takes the kernel's receive timestamp
(SO_TIMESTAMPNS), so its own scheduling delay is not counted as network delay, and counts
drops in its own socket buffer (SO_RXQ_OVFL), which would otherwise pass for network loss.

The sender schedules packet k at start + k * interval on the monotonic clock, anchored
once to the CLOCK_REALTIME epoch, so the rate does not drift with sleep overshoot and a
clock step cannot burst or stall it. With jitter_percent j, packet k leaves at
start + (k + u_k * j / 100) * interval, u_k uniform on [0, 1) from the flow's seed: the
mean rate and the order stay, but flows of one rate no longer keep a fixed phase to each
other and to the queue (perfectly paced flows of equal rate see the same queue state at
every packet, so one flow can lose most of its packets and another none). A packet sent
more than late_threshold_us after its time counts as a late send. If the start has
already passed when the sender is ready, it starts at the current slot rather than
bursting the missed ones, and reports how many it skipped.

iperf3 and irtt do not replace this. iperf3's UDP mode reports loss and jitter per
interval, not per packet. irtt sends isochronous packets with a DSCP and records each
one's one-way delay (its "send delay", from the server's receive timestamp), but it is a
round-trip tool: the server echoes every packet at full length (checked here with irtt
0.9.0: 27000 bytes sent, 27000 received), which would add a second marked 210 kbit/s
stream per flow on the reverse path, and a packet's one-way delay is lost with its echo.
"""

import argparse
import json
import math
import random
import socket
import struct
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field

from p4aqm.traffic.cli import (
    ArgumentParser,
    check_records_flag,
    flag_of,
    model_from_args,
    run,
    stop_on_signals,
)
from p4aqm.traffic.endpoints import Endpoint, parse_endpoint
from p4aqm.traffic.records import RecordWriter

HEADER = struct.Struct("!IQQ")
# IPv4 (20) and UDP (8) headers on top of the payload.
_IP_OVERHEAD_BYTES = 28
# asm-generic/socket.h; Python's socket module names neither.
_SO_TIMESTAMPNS = 35
_SO_RXQ_OVFL = 40
_SO_RCVBUFFORCE = 33
_TIMESPEC = struct.Struct("=qq")
_OVERFLOW = struct.Struct("=I")
_RECEIVE_BUFFER_BYTES = 8 << 20
_MAX_UDP_PAYLOAD = 65507

SCHEMA = pa.schema(
    [
        ("flow_id", pa.int64()),
        ("seq", pa.int64()),
        ("send_ns", pa.int64()),
        ("recv_ns", pa.int64()),
        ("owd_us", pa.float64()),
        ("payload_bytes", pa.int32()),
        ("dscp", pa.int16()),
    ]
)


class StreamParams(BaseModel):
    """A UDP stream on an absolute schedule."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rate_bps: float = Field(210_000.0, gt=0)
    payload_bytes: int = Field(1000, ge=HEADER.size, le=_MAX_UDP_PAYLOAD)
    dscp: int = Field(34, ge=0, le=63)
    flow_id: int = Field(0, ge=0, lt=1 << 32)
    epoch_ns: int | None = Field(None, ge=0, description="CLOCK_REALTIME ns; default: now")
    start_s: float = Field(0.0, ge=0)
    late_threshold_us: float = Field(1000.0, gt=0)
    jitter_percent: float = Field(0.0, ge=0, lt=100)
    seed: int = Field(0, ge=0)

    def interval_ns(self) -> float:
        return self.payload_bytes * 8 * 1e9 / self.rate_bps


class CbrParams(StreamParams):
    duration_s: float = Field(gt=0)


@dataclass
class SendSummary:
    flow_id: int
    packets_sent: int
    payload_bytes_sent: int
    send_errors: int
    late_sends: int
    max_late_us: float
    skipped_slots: int
    scheduled_start_ns: int
    scheduled_stop_ns: int
    first_send_ns: int | None
    last_send_ns: int | None
    rate_bps: float
    ip_rate_bps: float


def send_stream(
    params: StreamParams, stop_s: float, dest: Endpoint, stop: threading.Event | None = None
) -> SendSummary:
    """Send from epoch + start_s until epoch + stop_s, or until stop is set."""
    stop = stop or threading.Event()
    epoch_ns = time.time_ns() if params.epoch_ns is None else params.epoch_ns
    # One reading of both clocks maps the realtime schedule onto the monotonic clock.
    monotonic_epoch = time.monotonic_ns() + (epoch_ns - time.time_ns())
    first_due = monotonic_epoch + round(params.start_s * 1e9)
    end = monotonic_epoch + round(stop_s * 1e9)
    interval_ns = params.interval_ns()
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # Unconnected sends: ICMP port unreachable from a receiver not yet up does not turn
    # into errors on later sends.
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, params.dscp << 2)
    packet = bytearray(params.payload_bytes)
    # A start already past (the process came up late) begins at the current slot; sending
    # the missed slots back to back would be a burst the schedule never asked for.
    behind_ns = time.monotonic_ns() - first_due
    slot = math.ceil(behind_ns / interval_ns) if behind_ns > params.late_threshold_us * 1e3 else 0
    summary = SendSummary(
        flow_id=params.flow_id,
        packets_sent=0,
        payload_bytes_sent=0,
        send_errors=0,
        late_sends=0,
        max_late_us=0.0,
        skipped_slots=slot,
        scheduled_start_ns=epoch_ns + round(params.start_s * 1e9),
        scheduled_stop_ns=epoch_ns + round(stop_s * 1e9),
        first_send_ns=None,
        last_send_ns=None,
        rate_bps=params.rate_bps,
        ip_rate_bps=params.rate_bps
        * (params.payload_bytes + _IP_OVERHEAD_BYTES)
        / params.payload_bytes,
    )
    # A draw per slot, from the flow's seed: the same jitter in every run of that seed.
    jitter = random.Random(params.seed * (1 << 32) + params.flow_id)
    offset_ns = jitter.random() * params.jitter_percent / 100 * interval_ns
    try:
        while not stop.is_set():
            due = first_due + int(slot * interval_ns + offset_ns)
            if due >= end:
                break
            now = time.monotonic_ns()
            if due > now:
                stop.wait((due - now) / 1e9)
                continue
            late_us = (now - due) / 1e3
            send_ns = time.time_ns()
            HEADER.pack_into(packet, 0, params.flow_id, summary.packets_sent, send_ns)
            slot += 1
            offset_ns = jitter.random() * params.jitter_percent / 100 * interval_ns
            try:
                sock.sendto(packet, (dest.address, dest.port))
            except OSError:
                # ENOBUFS and the like: the packet never left this host.
                summary.send_errors += 1
                continue
            summary.packets_sent += 1
            summary.payload_bytes_sent += params.payload_bytes
            summary.first_send_ns = summary.first_send_ns or send_ns
            summary.last_send_ns = send_ns
            summary.max_late_us = max(summary.max_late_us, late_us)
            if late_us > params.late_threshold_us:
                summary.late_sends += 1
    finally:
        sock.close()
    return summary


@dataclass
class ReceiveSummary:
    packets: int
    malformed: int
    receive_buffer_drops: int
    flows: dict[int, int]


def receive(
    listen: Endpoint,
    records: RecordWriter,
    stop: threading.Event,
    duration_s: float | None = None,
    ready: threading.Event | None = None,
) -> ReceiveSummary:
    """Record every packet until stop is set or duration_s has passed."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, _SO_RCVBUFFORCE, _RECEIVE_BUFFER_BYTES)
    except PermissionError:  # not root: the kernel caps it at net.core.rmem_max
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, _RECEIVE_BUFFER_BYTES)
    sock.setsockopt(socket.SOL_SOCKET, _SO_TIMESTAMPNS, 1)
    sock.setsockopt(socket.SOL_SOCKET, _SO_RXQ_OVFL, 1)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_RECVTOS, 1)
    try:
        sock.bind((listen.address, listen.port))
    except OSError as error:
        raise ValueError(f"--listen {listen}: cannot listen: {error.strerror}") from None
    # Wake up now and then to see stop and the deadline.
    sock.settimeout(0.1)
    ancillary_bytes = (
        socket.CMSG_SPACE(_TIMESPEC.size)
        + socket.CMSG_SPACE(_OVERFLOW.size)
        + socket.CMSG_SPACE(4)  # IP_TOS
    )
    deadline = None if duration_s is None else time.monotonic() + duration_s
    summary = ReceiveSummary(packets=0, malformed=0, receive_buffer_drops=0, flows={})
    if ready is not None:
        ready.set()
    try:
        while not stop.is_set() and (deadline is None or time.monotonic() < deadline):
            try:
                data, ancillary, _, _ = sock.recvmsg(_MAX_UDP_PAYLOAD, ancillary_bytes)
            except TimeoutError:
                records.flush_if_due()
                continue
            recv_ns, tos = None, 0
            for level, kind, value in ancillary:
                if level == socket.SOL_SOCKET and kind == _SO_TIMESTAMPNS:
                    seconds, nanoseconds = _TIMESPEC.unpack(value)
                    recv_ns = seconds * 1_000_000_000 + nanoseconds
                elif level == socket.SOL_SOCKET and kind == _SO_RXQ_OVFL:
                    summary.receive_buffer_drops = _OVERFLOW.unpack(value)[0]
                elif level == socket.IPPROTO_IP and kind == socket.IP_TOS:
                    tos = value[0]
            if len(data) < HEADER.size:
                summary.malformed += 1
                continue
            flow_id, seq, send_ns = HEADER.unpack_from(data)
            recv_ns = recv_ns or time.time_ns()
            records.add(
                {
                    "flow_id": flow_id,
                    "seq": seq,
                    "send_ns": send_ns,
                    "recv_ns": recv_ns,
                    "owd_us": (recv_ns - send_ns) / 1e3,
                    "payload_bytes": len(data),
                    "dscp": tos >> 2,
                }
            )
            summary.packets += 1
            summary.flows[flow_id] = summary.flows.get(flow_id, 0) + 1
    finally:
        sock.close()
    return summary


def summarize(records: pd.DataFrame, sent_by_flow: Mapping[int, int] | None = None) -> pd.DataFrame:
    """Per flow: loss, one-way delay and RFC 3550 jitter of the received packets.

    sent_by_flow gives the packets each sender sent (its summary's packets_sent), so that
    packets lost after the last one received count too; without it a flow is taken to
    have sent up to its highest sequence number received.
    """
    rows = []
    flows = set(records["flow_id"].unique()) | set(sent_by_flow or {})
    for flow_id in sorted(flows):
        packets = records[records["flow_id"] == flow_id].sort_values("recv_ns", kind="stable")
        unique = packets.drop_duplicates("seq")
        if sent_by_flow is not None and flow_id in sent_by_flow:
            expected = sent_by_flow[flow_id]
        else:
            expected = int(unique["seq"].max()) + 1
        received = int((unique["seq"] < expected).sum())
        owd = unique["owd_us"].to_numpy()
        rows.append(
            {
                "flow_id": int(flow_id),
                "expected": expected,
                "received": received,
                "lost": expected - received,
                "loss_fraction": (expected - received) / expected if expected else math.nan,
                "duplicates": len(packets) - len(unique),
                "owd_mean_us": float(owd.mean()) if owd.size else math.nan,
                "owd_p50_us": float(np.percentile(owd, 50)) if owd.size else math.nan,
                "owd_p99_us": float(np.percentile(owd, 99)) if owd.size else math.nan,
                "owd_max_us": float(owd.max()) if owd.size else math.nan,
                "jitter_us": interarrival_jitter_us(unique),
            }
        )
    return pd.DataFrame(rows)


def interarrival_jitter_us(packets: pd.DataFrame) -> float:
    """RFC 3550 section 6.4.1: J += (|D| - J) / 16 over packets in arrival order, where D
    is the difference of consecutive packets' transit times; the value after the last."""
    if len(packets) < 2:
        return math.nan
    transit = (packets["recv_ns"] - packets["send_ns"]).to_numpy(dtype=np.float64)
    jitter = 0.0
    for difference in np.abs(np.diff(transit)):
        jitter += (difference - jitter) / 16
    return jitter / 1e3


def add_stream_flags(parser: ArgumentParser, params: type[StreamParams]) -> None:
    parser.add_argument("--dest", required=True, help="ADDR:PORT of the receiver")
    for name, kind in (
        ("rate_bps", float),
        ("payload_bytes", int),
        ("dscp", int),
        ("flow_id", int),
        ("epoch_ns", int),
        ("start_s", float),
        ("late_threshold_us", float),
        ("jitter_percent", float),
        ("seed", int),
    ):
        default = params.model_fields[name].default
        parser.add_argument(flag_of(name), type=kind, help=f"default {default}")
    parser.add_argument("--summary", type=Path, help="also write the summary (JSON) here")


def write_summary(summary: dict[str, Any], path: Path | None) -> None:
    """Print the summary as one JSON line, and write it to path (temp file, then rename)."""
    text = json.dumps(summary)
    if path is not None:
        tmp = path.with_name(f".{path.name}.tmp")
        tmp.write_text(text + "\n")
        tmp.replace(path)
    print(text, flush=True)


def _send(args: argparse.Namespace) -> None:
    params = model_from_args(CbrParams, args)
    dest = parse_endpoint(args.dest, "--dest")
    summary = send_stream(params, params.start_s + params.duration_s, dest, stop_on_signals())
    write_summary(asdict(summary), args.summary)


def _recv(args: argparse.Namespace) -> None:
    listen = parse_endpoint(args.listen, "--listen", listen=True)
    if args.duration_s is not None and args.duration_s <= 0:
        raise ValueError(f"--duration-s: {args.duration_s} is not positive")
    if args.flush_interval_s <= 0:
        raise ValueError(f"--flush-interval-s: {args.flush_interval_s} is not positive")
    check_records_flag(args.records)
    metadata = {"kind": "cbr_receiver", "listen": str(listen), "start_ns": time.time_ns()}
    records = RecordWriter(args.records, SCHEMA, metadata, args.flush_interval_s)
    summary = receive(listen, records, stop_on_signals(), args.duration_s)
    records.close(asdict(summary))
    write_summary(asdict(summary), None)


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m p4aqm.traffic.cbr", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    send = commands.add_parser("send", help="send one CBR flow")
    add_stream_flags(send, CbrParams)
    send.add_argument("--duration-s", type=float, required=True)
    recv = commands.add_parser("recv", help="record every packet received")
    recv.add_argument("--listen", required=True, help="ADDR:PORT")
    recv.add_argument("--records", type=Path, required=True, help=".parquet or .csv")
    recv.add_argument("--duration-s", type=float, help="default: until SIGTERM/SIGINT")
    recv.add_argument("--flush-interval-s", type=float, default=5.0)
    args = parser.parse_args(argv)
    if args.command == "send":
        _send(args)
    else:
        _recv(args)
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
