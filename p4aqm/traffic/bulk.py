"""Bulk TCP (the FTP flows of Parris et al., the WAD flows of Dunigan et al.): greedy
senders and receivers that count what each flow moved in each interval.

    python -m p4aqm.traffic.bulk listen  --address ADDR --port P --flows N (--send | --receive)
                                         [--epoch-ns E] --duration-s D --records FILE
    python -m p4aqm.traffic.bulk connect --address ADDR --port P --flows N (--send | --receive)
                                         [--epoch-ns E] --duration-s D --records FILE

One process serves one end of a group of flows. Flow k (numbered from --first-flow) uses
port P + k: the listening end binds it and accepts one connection on it, the connecting
end opens it at the epoch and retries every RETRY_S while it is refused or times out.
Which end sends is a flag: the connecting end sending is an upload, the listening end
sending a download (a study file's `reverse`). --congestion-control sets TCP_CONGESTION on
this end's sockets; without it they keep the host's (or what a tuning rule sets).

Without --epoch-ns, an end prints "ready" once it has started (and, listening, bound its
ports) and reads the epoch from stdin: a point starts its bulk ends, waits until all are
ready, and only then sets the epoch. An interpreter importing pyarrow takes about a
second, and with five Parris points at once (load average 15-20) the connecting ends of
2026-11-30 started 4-23 s after an epoch set 1 s ahead, into the blast.

Each end records, per flow and per interval of --interval-s counted from the epoch on
CLOCK_REALTIME, the bytes it read (receiving end) or handed to TCP (sending end); the
sending end also records its socket's tcp_info at the interval's end: segments
retransmitted in the interval, congestion window (bytes) and smoothed RTT. Every flow
has a row in every interval, with 0 bytes before it connects. Both ends cut their
intervals at the same instants of one clock (Mininet hosts share the kernel's), so their
rows join on (flow, end_ns) and a report places them in the run without knowing when
each flow connected. At the run's end (or on SIGTERM/SIGINT) each end resets its
connections and writes its records (traffic.records), whatever TCP is doing.

Why not iperf3, which served until 2026-11-30: its select() loop spins while a data
socket waits for its test to start, and under heavy loss that wait is tens of seconds
(handshakes in retransmission backoff): with 240 flows, one or two iperf3 clients used
20-83 % of a core each (README, Parris et al.). Its intervals count from each test's own
start, which had to be recovered from a TCP trace, and its closing exchange could sit in a
backed-off retransmission timer for minutes. Here each end sleeps in epoll until a socket
can move data or an interval ends.
"""

import argparse
import errno
import selectors
import socket
import struct
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field, model_validator

from p4aqm.traffic.cli import (
    ArgumentParser,
    check_records_flag,
    model_from_args,
    raise_open_files_limit,
    run,
    stop_on_signals,
)
from p4aqm.traffic.records import RecordWriter
from p4aqm.traffic.tcp_info import tcp_info

CHUNK_BYTES = 128 * 1024  # per send() or recv_into(); the kernel takes what fits
RETRY_S = 0.2  # between connection attempts that failed (refused, timed out)
# Reset rather than close at the end: a graceful close would leave the kernel sending the
# send buffer's remains into the next point's teardown.
LINGER_RESET = struct.pack("ii", 1, 0)

SCHEMA = pa.schema(
    [
        ("flow", pa.int32()),
        ("end_ns", pa.int64()),  # the interval's end, CLOCK_REALTIME
        ("bytes", pa.int64()),  # read (receiving end) or handed to TCP (sending end)
        ("retransmits", pa.int64()),  # segments, in the interval; sending end only
        ("snd_cwnd_bytes", pa.int64()),  # sending end only
        ("rtt_us", pa.int64()),  # smoothed; sending end only
    ]
)
COLUMNS = tuple(SCHEMA.names)


class BulkEnd(BaseModel):
    """One end of a group of bulk flows; the flags of the command line, by name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    address: str = Field(min_length=1, description="listen: to bind; connect: the listener's")
    port: int = Field(ge=1, le=65535, description="flow k uses port + k")
    first_flow: int = Field(0, ge=0)
    flows: int = Field(1, ge=1, le=4096)
    send: bool
    # CLOCK_REALTIME ns, intervals count from here; None: read from stdin once ready.
    epoch_ns: int | None = Field(None, ge=0)
    duration_s: float = Field(gt=0)
    interval_s: float = Field(0.5, ge=0.01)
    congestion_control: str | None = Field(None, pattern=r"^[a-z0-9_]+$")

    @model_validator(mode="after")
    def _ports_fit(self) -> "BulkEnd":
        last = self.port + self.first_flow + self.flows - 1
        if last > 65535:
            raise ValueError(
                f"--port, --first-flow, --flows: flow {self.first_flow + self.flows - 1}"
                f" would use port {last}, past 65535"
            )
        return self

    def flow_port(self, flow: int) -> int:
        return self.port + flow


@dataclass
class _Flow:
    flow: int
    sock: socket.socket | None = None  # the data connection, once connected
    pending: socket.socket | None = None  # listening, or connecting
    moved_bytes: int = 0  # in the current interval
    total_bytes: int = 0
    retrans_before: int = 0
    connected_ns: int | None = None
    attempts: int = 0
    retry_at: float = 0.0  # monotonic: when to (re)connect, while in BulkFlows.retrying
    errors: list[str] = field(default_factory=list)
    connection: tuple[str, int, str, int] | None = None  # local, remote


class BulkFlows:
    """The event loop of one end: epoll until a socket can move data, a connection attempt
    is due, or an interval ends."""

    def __init__(self, end: BulkEnd, role: Literal["listen", "connect"]) -> None:
        self.end = end
        self.role = role
        self.selector = selectors.DefaultSelector()
        self.flows = [_Flow(end.first_flow + i) for i in range(end.flows)]
        self.retrying: list[_Flow] = []  # connecting end: flows to (re)connect
        self._buffer = memoryview(bytearray(CHUNK_BYTES))

    def listen(self) -> None:
        """Bind every flow's port now, so that a connecting end started after this finds
        them; an address or port that cannot be bound is a ValueError naming it."""
        for flow in self.flows:
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                listener.bind((self.end.address, self.end.flow_port(flow.flow)))
            except OSError as error:
                listener.close()
                raise ValueError(
                    f"--address, --port: cannot bind {self.end.address}:"
                    f"{self.end.flow_port(flow.flow)} for flow {flow.flow}: {error.strerror}"
                ) from None
            listener.listen(1)
            listener.setblocking(False)
            flow.pending = listener
            self.selector.register(listener, selectors.EVENT_READ, flow)

    def run(self, records: RecordWriter, stop: threading.Event) -> dict[str, Any]:
        """Move data until the run's end or `stop`; a row per flow per interval."""
        assert self.end.epoch_ns is not None, "the epoch is set before the run"
        end_ns = self.end.epoch_ns + round(self.end.duration_s * 1e9)
        interval_ns = round(self.end.interval_s * 1e9)
        _sleep_until(self.end.epoch_ns, stop)
        if self.role == "connect":
            self.retrying = list(self.flows)
        boundary_ns = min(self.end.epoch_ns + interval_ns, end_ns)
        ready: list[tuple[selectors.SelectorKey, int]] = []
        while not stop.is_set():
            now_ns = time.time_ns()
            # An interval that ended while waiting is recorded before the events that
            # came meanwhile: at the run's end the other end's reset must not come first.
            if now_ns >= boundary_ns:
                self._record(records, boundary_ns)
                if boundary_ns >= end_ns:
                    break
                boundary_ns = min(boundary_ns + interval_ns, end_ns)
                continue
            for key, _ in ready:
                self._ready(key.data, key.fileobj)
            self._connect_due()
            timeout_s = (boundary_ns - now_ns) / 1e9
            if self.retrying:
                next_s = min(f.retry_at for f in self.retrying) - time.monotonic()
                timeout_s = min(timeout_s, max(0.0, next_s))
            ready = self.selector.select(timeout_s)
        self._close()
        return self._summary()

    def _connect_due(self) -> None:
        now = time.monotonic()
        due = [f for f in self.retrying if f.retry_at <= now]
        if not due:
            return
        self.retrying = [f for f in self.retrying if f.retry_at > now]
        for flow in due:
            flow.attempts += 1
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.set_congestion_control(sock)
            sock.setblocking(False)
            code = sock.connect_ex((self.end.address, self.end.flow_port(flow.flow)))
            if code not in (0, errno.EINPROGRESS):
                self._failed(flow, sock, code)
                continue
            flow.pending = sock
            self.selector.register(sock, selectors.EVENT_WRITE, flow)

    def _ready(self, flow: _Flow, sock: socket.socket) -> None:
        if sock is flow.sock:
            self._move(flow, sock)
        elif self.role == "listen":
            self._accept(flow, sock)
        else:
            self._connected(flow, sock)

    def _accept(self, flow: _Flow, listener: socket.socket) -> None:
        try:
            sock, _ = listener.accept()
        except BlockingIOError:
            return
        # One connection per flow: the port stops listening.
        self.selector.unregister(listener)
        listener.close()
        flow.pending = None
        self.set_congestion_control(sock)
        self._established(flow, sock)

    def _connected(self, flow: _Flow, sock: socket.socket) -> None:
        self.selector.unregister(sock)
        flow.pending = None
        code = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if code:
            self._failed(flow, sock, code)
            return
        self._established(flow, sock)

    def _failed(self, flow: _Flow, sock: socket.socket, code: int) -> None:
        sock.close()
        reason = errno.errorcode.get(code, str(code))
        if reason not in flow.errors:
            flow.errors.append(reason)
        flow.retry_at = time.monotonic() + RETRY_S
        self.retrying.append(flow)

    def _established(self, flow: _Flow, sock: socket.socket) -> None:
        sock.setblocking(False)
        local, remote = sock.getsockname(), sock.getpeername()
        flow.connection = (local[0], local[1], remote[0], remote[1])
        flow.connected_ns = time.time_ns()
        flow.sock = sock
        events = selectors.EVENT_WRITE if self.end.send else selectors.EVENT_READ
        self.selector.register(sock, events, flow)

    def _move(self, flow: _Flow, sock: socket.socket) -> None:
        try:
            moved = sock.send(self._buffer) if self.end.send else sock.recv_into(self._buffer)
        except BlockingIOError:
            return
        except OSError as error:  # reset by the other end: the flow is over
            flow.errors.append(errno.errorcode.get(error.errno or 0, str(error)))
            self._drop(flow)
            return
        if moved == 0 and not self.end.send:  # the other end closed
            self._drop(flow)
            return
        flow.moved_bytes += moved
        flow.total_bytes += moved

    def _drop(self, flow: _Flow) -> None:
        assert flow.sock is not None
        self.selector.unregister(flow.sock)
        flow.sock.close()
        flow.sock = None

    def _record(self, records: RecordWriter, end_ns: int) -> None:
        for flow in self.flows:
            row: dict[str, Any] = {"flow": flow.flow, "end_ns": end_ns, "bytes": flow.moved_bytes}
            flow.moved_bytes = 0
            if self.end.send and flow.sock is not None:
                info = tcp_info(flow.sock)
                row["retransmits"] = info.total_retrans - flow.retrans_before
                row["snd_cwnd_bytes"] = info.snd_cwnd * info.snd_mss
                row["rtt_us"] = info.rtt_us
                flow.retrans_before = info.total_retrans
            records.add(row)

    def set_congestion_control(self, sock: socket.socket) -> None:
        if self.end.congestion_control is None:
            return
        try:
            sock.setsockopt(
                socket.IPPROTO_TCP, socket.TCP_CONGESTION, self.end.congestion_control.encode()
            )
        except OSError as error:
            raise ValueError(
                f"--congestion-control: {self.end.congestion_control!r}: {error.strerror}"
                " (net.ipv4.tcp_allowed_congestion_control lists what may be set)"
            ) from None

    def _close(self) -> None:
        for flow in self.flows:
            for sock in (flow.sock, flow.pending):
                if sock is not None:
                    self.selector.unregister(sock)
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, LINGER_RESET)
                    sock.close()
            flow.sock = flow.pending = None
        self.selector.close()

    def _summary(self) -> dict[str, Any]:
        flows = {
            str(f.flow): {
                "connected_ns": f.connected_ns,
                "attempts": f.attempts,
                "errors": f.errors,
                "total_bytes": f.total_bytes,
                "connection": f.connection,
            }
            for f in self.flows
        }
        unconnected = [f.flow for f in self.flows if f.connected_ns is None]
        return {"flows": flows, "unconnected": unconnected}


def _sleep_until(epoch_ns: int, stop: threading.Event) -> None:
    while (wait_ns := epoch_ns - time.time_ns()) > 0 and not stop.is_set():
        stop.wait(wait_ns / 1e9)


def _epoch_from_stdin() -> int:
    """Say "ready", then the epoch: one line on stdin, CLOCK_REALTIME ns."""
    print("ready", flush=True)
    line = sys.stdin.readline()
    if not line:
        raise ValueError("stdin: closed before the epoch came (no --epoch-ns given)")
    try:
        epoch_ns = int(line)
    except ValueError:
        raise ValueError(f"stdin: {line.strip()!r} is not an epoch (CLOCK_REALTIME ns)") from None
    if epoch_ns < 0:
        raise ValueError(f"stdin: epoch {epoch_ns} is negative")
    return epoch_ns


def _main_end(role: Literal["listen", "connect"], args: argparse.Namespace) -> None:
    end = model_from_args(BulkEnd, args)
    check_records_flag(args.records)
    raise_open_files_limit()
    flows = BulkFlows(end, role)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        flows.set_congestion_control(probe)  # a name the kernel refuses fails now, not later
    if role == "listen":
        flows.listen()
    if end.epoch_ns is None:
        end = end.model_copy(update={"epoch_ns": _epoch_from_stdin()})
        flows.end = end
    metadata = {
        "kind": "bulk_sender" if end.send else "bulk_receiver",
        "role": role,
        **end.model_dump(),
    }
    records = RecordWriter(args.records, SCHEMA, metadata)
    summary = flows.run(records, stop_on_signals())
    records.close(summary)


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m p4aqm.traffic.bulk", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="role", required=True)
    for role, text in (("listen", "accept the flows"), ("connect", "open the flows")):
        command = commands.add_parser(role, help=text)
        command.add_argument("--address", required=True)
        command.add_argument("--port", type=int, required=True)
        command.add_argument("--first-flow", type=int, help="default 0")
        command.add_argument("--flows", type=int, help="default 1")
        direction = command.add_mutually_exclusive_group(required=True)
        direction.add_argument("--send", action="store_true", default=None)
        direction.add_argument("--receive", dest="send", action="store_false")
        command.add_argument("--epoch-ns", type=int, help='default: after "ready", from stdin')
        command.add_argument("--duration-s", type=float, required=True)
        command.add_argument("--interval-s", type=float, help="default 0.5")
        command.add_argument("--congestion-control", help="default: the host's")
        command.add_argument("--records", type=Path, required=True, help=".parquet or .csv")
    args = parser.parse_args(argv)
    role = args.__dict__.pop("role")
    _main_end(role, args)
    return 0


if __name__ == "__main__":
    sys.exit(run(main))
