"""A results folder (experiments/README.md) read into pandas frames.

Every frame of a point holds only what happened inside its measurement window,
manifest["window"] = [start_ns, end_ns] (CLOCK_REALTIME; the warm-up is before start_ns):
web requests by when they started (start_ns), UDP packets by when they were sent
(send_ns), throughput rows marked measured, monitor samples by when they were taken
(realtime_ns). Each frame gets t_s, seconds since the window's start.

Monitor files come with p4aqm/schema.py's columns, also those written before it
(read_monitor).
"""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from p4aqm.schema import (
    LEGACY_COLUMNS,
    LEGACY_COUNTERS,
    LEGACY_TOTALS,
    Column,
    counter_column,
)
from p4aqm.traffic import bulk as bulk_flows
from p4aqm.traffic.records import read_records

# experiments/README.md: the router whose bottleneck direction a monitor file samples.
MONITOR_DIRECTIONS = {"r1": "client_to_server", "r2": "server_to_client"}
POINT_KEYS = ("status", "point", "sweep")
# The columns the report reads from each kind of file.
WEB_COLUMNS = ("start_ns", "response_time_us", "reply_bytes", "outcome")
# throughput.csv's time is the monitor's: CLOCK_REALTIME in ns.
THROUGHPUT_COLUMNS = (Column.REALTIME_NS, "direction", "bps", "utilisation", "measured")
UDP_COLUMNS = ("flow_id", "seq", "send_ns", "recv_ns", "owd_us")
TCP_COLUMNS = (
    Column.REALTIME_NS,
    "src",
    "sport",
    "dst",
    "dport",
    "ca_state",
    "snd_cwnd_pkts",
    "srtt_us",
    "bytes_acked",
    "bytes_received",
)


class ResultsError(Exception):
    """Input the report cannot use; the message starts with the path at fault."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


@dataclass(frozen=True)
class Point:
    source: str  # the label of the results folder the point comes from
    folder: Path
    manifest: dict[str, Any]

    @property
    def name(self) -> str:
        return self.manifest["point"]["name"]

    @property
    def status(self) -> str:
        return self.manifest["status"]

    @property
    def error(self) -> str | None:
        return self.manifest.get("error")

    @property
    def sweep(self) -> dict[str, Any]:
        return self.manifest["sweep"]

    @property
    def repetition(self) -> int:
        return self.manifest["point"].get("repetition", 1)

    @property
    def window(self) -> tuple[int, int]:
        window = self.manifest["window"]
        return window["start_ns"], window["end_ns"]

    @property
    def experiment_name(self) -> str:
        return self.manifest.get("experiment", {}).get("name", "")

    @property
    def load_percent(self) -> float | None:
        """The web load the point ran at (its resolved experiment's), swept or not."""
        web = (self.manifest.get("experiment", {}).get("traffic") or {}).get("web") or {}
        return web.get("load_percent")


@dataclass(frozen=True)
class Queue:
    """A bottleneck queue's monitor samples inside the window."""

    name: str  # the router (r1, r2), and the port if its monitor sampled several
    direction: str  # client_to_server or server_to_client
    samples: pd.DataFrame


@dataclass(frozen=True)
class UdpFlow:
    """One UDP flow's received packets that were sent inside the window, numbered from the
    first packet sent inside it (seq 0), and how many were sent inside it."""

    name: str
    flow_id: int
    packets: pd.DataFrame
    sent: int


@dataclass(frozen=True)
class PointData:
    point: Point
    web: pd.DataFrame  # client requests: outcome, response_time_ms, reply_bytes, ...
    throughput: pd.DataFrame  # per second and direction: utilisation, bps, ...
    queues: list[Queue]
    udp: list[UdpFlow]
    # Bulk TCP (traffic.bulk), per flow and interval ending in the window: bytes received,
    # the sender's retransmits, snd_cwnd_bytes and rtt_us, end_ns, t_s.
    bulk: pd.DataFrame
    # The TCP tracer's samples of every traced host (tcp/HOST.parquet), with host and t_s.
    tcp: pd.DataFrame = field(default_factory=pd.DataFrame)
    # The bulk flows that never connected, each with its attempts and their errors (their
    # intervals are in `bulk`, with 0 bytes).
    bulk_unconnected: list[str] = field(default_factory=list)


def load_results(folder: Path, source: str) -> list[Point]:
    """The points of a results folder, in sweep order; source labels them."""
    if not folder.is_dir():
        raise ResultsError(folder, "no such folder")
    points_dir = folder / "points"
    if not points_dir.is_dir():
        raise ResultsError(folder, "not a results folder (no points/; see experiments/README.md)")
    folders = sorted(p for p in points_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not folders:
        raise ResultsError(points_dir, "no points (has the experiment run?)")
    points = [Point(source, p, _read_manifest(p / "manifest.json")) for p in folders]
    return sorted(points, key=lambda p: (p.manifest["point"].get("index", 0), p.name))


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ResultsError(path, f"unreadable manifest: {exc}") from None
    if not isinstance(manifest, dict) or any(key not in manifest for key in POINT_KEYS):
        raise ResultsError(path, f"not a point's manifest (needs {', '.join(POINT_KEYS)})")
    if not isinstance(manifest["point"], dict) or "name" not in manifest["point"]:
        raise ResultsError(path, "not a point's manifest (point.name missing)")
    if not isinstance(manifest["sweep"], dict):
        raise ResultsError(path, "not a point's manifest (sweep is not a mapping)")
    window = manifest.get("window")
    if manifest["status"] == "ok" and not (
        isinstance(window, dict) and {"start_ns", "end_ns"} <= window.keys()
    ):
        raise ResultsError(path, "an ok point without window {start_ns, end_ns}")
    return manifest


@contextmanager
def _reading(path: Path) -> Iterator[None]:
    """Any failure to read path becomes a ResultsError naming it."""
    try:
        yield
    except (OSError, ValueError, KeyError, pa.ArrowException) as exc:
        raise ResultsError(path, f"unreadable: {type(exc).__name__}: {exc}") from None


def _require(frame: pd.DataFrame, columns: tuple[str, ...]) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise KeyError(f"no column {', '.join(missing)}")


def load_point(point: Point) -> PointData:
    """An ok point's records inside its window."""
    bulk, bulk_unconnected = read_bulk(point)
    return PointData(
        point=point,
        web=_web(point),
        throughput=_throughput(point),
        queues=_queues(point),
        udp=_udp(point),
        bulk=bulk,
        tcp=_tcp(point),
        bulk_unconnected=bulk_unconnected,
    )


def _inside(frame: pd.DataFrame, column: str, window: tuple[int, int]) -> pd.DataFrame:
    start_ns, end_ns = window
    inside = frame[(frame[column] >= start_ns) & (frame[column] <= end_ns)].copy()
    inside["t_s"] = (inside[column] - start_ns) / 1e9
    return inside


def _record_paths(directory: Path) -> list[Path]:
    """The Parquet record files of a directory, and those a killed run left as FILE.parts/."""
    names = {p.name.removesuffix(".parts") for p in directory.glob("*.parquet*")}
    return [directory / n for n in sorted(names) if n.endswith(".parquet")]


def _web(point: Point) -> pd.DataFrame:
    frames = []
    for path in _record_paths(point.folder / "web"):
        if path.stem.endswith("-server"):  # per connection; the clients' records suffice
            continue
        with _reading(path):
            frame, _ = read_records(path)
            _require(frame, WEB_COLUMNS)
            frame = _inside(frame, "start_ns", point.window)
            frame["response_time_ms"] = frame["response_time_us"] / 1e3
            frame["base_rtt_ms"] = _base_rtt_ms(point, frame)
        frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=[*WEB_COLUMNS, "t_s", "response_time_ms", "base_rtt_ms"])
    return pd.concat(frames, ignore_index=True)


def _base_rtt_ms(point: Point, web: pd.DataFrame) -> pd.Series:
    """Each request's client-server round-trip time without queueing: twice the two
    hosts' access delays and the bottleneck's (manifest hosts and topology); NaN where
    the manifest or the records do not name them."""
    hosts = point.manifest.get("hosts") or {}
    if not hosts or "client_host" not in web or "server_host" not in web:
        return pd.Series(np.nan, index=web.index)
    bottleneck_us = (point.manifest.get("topology") or {}).get("bottleneck_delay_us") or 0
    one_way_us = {name: host.get("one_way_delay_us", 0) for name, host in hosts.items()}
    client = web["client_host"].map(one_way_us)
    server = web["server_host"].map(one_way_us)
    return 2 * (client + server + bottleneck_us) / 1e3


def _throughput(point: Point) -> pd.DataFrame:
    path = point.folder / "throughput.csv"
    if not path.exists():
        return pd.DataFrame(columns=[*THROUGHPUT_COLUMNS, "t_s"])
    with _reading(path):
        frame = pd.read_csv(path)
        _require(frame, THROUGHPUT_COLUMNS)
        # A column of True/False parses as bool, but a hand-edited or partial file may not.
        measured = frame["measured"].astype(str).str.lower() == "true"
        frame = frame[measured].copy()
        frame["t_s"] = (frame[Column.REALTIME_NS] - point.window[0]) / 1e9
    return frame


def _queues(point: Point) -> list[Queue]:
    queues = []
    for path in sorted(point.folder.glob("monitor-*.parquet")):
        router = path.stem.removeprefix("monitor-")
        with _reading(path):
            samples = read_monitor(path)
            _require(samples, (Column.REALTIME_NS,))
            samples = _inside(samples, Column.REALTIME_NS, point.window)
            port_of = samples.get(Column.EGRESS_PORT)
            ports = sorted(port_of.unique()) if port_of is not None else []
        direction = MONITOR_DIRECTIONS.get(router, router)
        if len(ports) > 1:
            queues += [
                Queue(f"{router} port {port}", direction, samples[port_of == port])
                for port in ports
            ]
        else:
            queues.append(Queue(router, direction, samples))
    return queues


def read_monitor(path: Path) -> pd.DataFrame:
    """A monitor file's samples under p4aqm/schema.py's columns. A file written before them
    gets its columns renamed (LEGACY_COLUMNS), and its counters become `<name>_delta`:
    the monitor's were deltas per period already, the P4Runtime sampler's were totals
    since its first read and are differenced per port (0 in the first row, as the
    monitor's first record)."""
    samples = pd.read_parquet(path)
    counters = [c for c in samples.columns if _legacy_counter(c)]
    if not counters and not LEGACY_COLUMNS.keys() & set(samples.columns):
        return samples
    samples = samples.rename(columns=LEGACY_COLUMNS)
    if counters and _counters_metadata(path) == LEGACY_TOTALS:
        # File order is sampling order, so each port's rows are in time order.
        deltas = samples.groupby(Column.EGRESS_PORT, sort=False)[counters].diff().fillna(0)
        samples[counters] = deltas.astype(samples[counters].dtypes.to_dict())
    return samples.rename(columns={c: counter_column(c) for c in counters})


def _legacy_counter(column: str) -> bool:
    """A P4 counter's column as files before the `_delta` names spelled it: `marks`, or
    a CBT class's `tcp_marks`."""
    return any(column == c or column.endswith(f"_{c}") for c in LEGACY_COUNTERS)


def _counters_metadata(path: Path) -> str | None:
    """What a monitor file's metadata says of its counters, None if it says nothing."""
    raw = (pq.read_schema(path).metadata or {}).get(b"p4aqm")
    return json.loads(raw).get("counters") if raw else None


def read_bulk(point: Point) -> tuple[pd.DataFrame, list[str]]:
    """Every bulk flow's intervals that end inside the window (traffic.bulk): the bytes
    its receiving end read, with its sending end's retransmits, congestion window and
    RTT joined on (flow, end_ns); and the flows that never connected. An interval ending
    at the window's start is the warm-up's last."""
    folder = point.folder / "bulk"
    if old := sorted(folder.glob("flow*.json")):
        raise ResultsError(
            old[0],
            "an iperf3 report, from before 2026-11-30; this version reads the bulk flows'"
            " records (traffic.bulk): rerun the point",
        )
    received, sent, unconnected = [], [], []
    for path in _record_paths(folder):
        with _reading(path):
            rows, metadata = read_records(path)
            _require(rows, bulk_flows.COLUMNS)
            sending = metadata["send"]
            summary = metadata.get("summary") or {}
        (sent if sending else received).append(rows)
        if metadata.get("role") == "connect":
            for flow in summary.get("unconnected", []):
                state = summary["flows"][str(flow)]
                unconnected.append(
                    f"flow {flow}: never connected in {state['attempts']} attempts"
                    f" ({', '.join(state['errors']) or 'no error: still connecting'})"
                )
    if not received:
        return pd.DataFrame(columns=[*bulk_flows.COLUMNS, "t_s"]), unconnected
    intervals = pd.concat(received, ignore_index=True)[["flow", "end_ns", "bytes"]]
    if sent:
        sender = pd.concat(sent, ignore_index=True).drop(columns="bytes")
        intervals = intervals.merge(sender, on=["flow", "end_ns"], how="left")
    after_start = intervals[intervals["end_ns"] > point.window[0]]
    return _inside(after_start, "end_ns", point.window), unconnected


def _tcp(point: Point) -> pd.DataFrame:
    """The TCP tracer's samples inside the window, each with its host."""
    frames = []
    for path in _record_paths(point.folder / "tcp"):
        with _reading(path):
            samples, _ = read_records(path)
            _require(samples, TCP_COLUMNS)
        host = path.name.removesuffix(".parquet")
        frames.append(_inside(samples, Column.REALTIME_NS, point.window).assign(host=host))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _udp(point: Point) -> list[UdpFlow]:
    flows = []
    for path in _record_paths(point.folder / "udp"):
        stem = path.name.removesuffix(".parquet")
        sender_path = path.with_name(f"{stem}.json")
        with _reading(path):
            packets, _ = read_records(path)
            _require(packets, UDP_COLUMNS)
        flow_ids = set(packets["flow_id"].unique())
        # seq -> send_ns of the first and last packets the sender sent, by flow
        anchors: dict[int, dict[int, int]] = {}
        if sender_path.exists():
            with _reading(sender_path):
                sender = json.loads(sender_path.read_text())
                flow_ids.add(sender["flow_id"])
                if sender["packets_sent"]:
                    anchors[sender["flow_id"]] = {
                        0: sender["first_send_ns"],
                        sender["packets_sent"] - 1: sender["last_send_ns"],
                    }
        for flow_id in sorted(flow_ids):
            own = packets[packets["flow_id"] == flow_id]
            first_seq, sent = _sent_in_window(own, anchors.get(flow_id, {}), point.window)
            inside = _inside(own, "send_ns", point.window)
            inside["seq"] -= first_seq
            name = stem if len(flow_ids) == 1 else f"{stem} flow {flow_id}"
            flows.append(UdpFlow(name, int(flow_id), inside, sent))
    return flows


def _sent_in_window(
    packets: pd.DataFrame, anchors: dict[int, int], window: tuple[int, int]
) -> tuple[int, int]:
    """The first sequence number sent inside the window, and how many were sent in it.

    A lost packet's send time is not recorded. The sender numbers the packets it sends
    consecutively at a constant rate, so a lost one's send time is interpolated between
    the packets received around it; the sender's summary anchors its first and last
    packets, so that losses at either end count. Without the summary the flow is taken to
    span the sequence numbers received.
    """
    known = anchors | dict(zip(packets["seq"].tolist(), packets["send_ns"].tolist(), strict=True))
    if not known:
        return 0, 0
    seqs = np.array(sorted(known))
    # Offsets from the first send: ns since 1970 do not fit float64's 53 bits exactly.
    base_ns = known[int(seqs[0])]
    sent_offset_ns = np.array([known[s] - base_ns for s in seqs], dtype=np.float64)
    every = np.arange(seqs[0], seqs[-1] + 1)
    estimated_ns = np.interp(every, seqs, sent_offset_ns)
    start_ns, end_ns = window
    inside = every[(estimated_ns >= start_ns - base_ns) & (estimated_ns <= end_ns - base_ns)]
    if inside.size == 0:
        return 0, 0
    return int(inside[0]), int(inside.size)
