"""Sampling through the switch's own queue monitor, over gNMI Subscribe.

On `p4aqm switch` the dataplane samples every period itself (p4switch/gnmi/monitor.py):
the traffic manager's depth and counts for each AQM port's queue, the register cells
and counter cells the ports' disciplines name (their `probes()`), all at one instant,
stamped with the switch's clock and CLOCK_REALTIME. The records arrive in batches; this
module turns each into one row per port: no P4Runtime read per sample, and no period
lost to a slow reader (a late monitor says how many periods it missed).

Switches without the monitor (BMv2) are sampled over P4Runtime instead (sampler.py).
"""

import json
import queue
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import grpc
import numpy as np
from finsy import GNMIPath
from finsy.proto import gnmi, gnmi_grpc

from controller.sample_file import ColumnType, Row, SampleFile, open_sample_file
from controller.sampler import Probe, scaled

QUEUE = 0  # v1model's single queue per port, unless priority queues are configured
# Per queue, in the monitor's record, and the row column each becomes.
QUEUE_FIELDS = {
    "depth_pkts": "depth_pkts",
    "depth_bytes": "depth_bytes",
    "arrivals": "arrivals",
    "departures": "departures",
    "tm_drops": "tm_drops",
    "departed_sojourn_max_us": "sojourn_max_us",
}


class MonitorSampler:
    """One monitor stream for every AQM port; rows come out of `rows()`."""

    def __init__(self, grpc_addr: str, ports: dict[int, list[Probe]], period_s: float) -> None:
        self._ports = sorted(ports)
        self._probes = ports
        self._registers: list[tuple[str, int]] = []
        self._counters: list[tuple[str, int]] = []
        for port in self._ports:
            for probe in ports[port]:
                cells = self._registers if probe.kind == "register" else self._counters
                if (probe.name, probe.index(port)) not in cells:
                    cells.append((probe.name, probe.index(port)))
        interval_ns = round(period_s * 1e9)
        paths = [f"/p4aqm/ports/port[id={p}]/queues/queue[id={QUEUE}]/state" for p in self._ports]
        paths += [f"/p4aqm/registers/register[name={n}][index={i}]" for n, i in self._registers]
        paths += [f"/p4aqm/counters/counter[name={n}][index={i}]" for n, i in self._counters]
        subscriptions = gnmi.SubscriptionList(
            mode=gnmi.SubscriptionList.STREAM,
            encoding=gnmi.Encoding.BYTES,
            subscription=[
                gnmi.Subscription(
                    path=GNMIPath(p).path,
                    mode=gnmi.SubscriptionMode.SAMPLE,
                    sample_interval=interval_ns,
                )
                for p in paths
            ],
        )
        self._requests: queue.Queue[gnmi.SubscribeRequest | None] = queue.Queue()
        self._requests.put(gnmi.SubscribeRequest(subscribe=subscriptions))
        self._channel = grpc.insecure_channel(grpc_addr)
        self._call = gnmi_grpc.gNMIStub(self._channel).Subscribe(iter(self._requests.get, None))
        self.missed = self.overruns = 0
        self._dtype, self.layout = self._read_layout()
        self.columns: dict[str, ColumnType] = {
            "realtime_ns": "int64",
            "time_us": "int64",
            "period": "int64",
            "port": "int64",
            "queue": "int64",
            **dict.fromkeys(QUEUE_FIELDS.values(), "int64"),
            "sojourn_mean_us": "float64",
        }
        self.sources = {
            column: "the switch's queue monitor (traffic manager)" for column in self.columns
        }
        for port in self._ports:
            for probe in ports[port]:
                self.columns[probe.column] = "float64" if probe.scale != 1.0 else "int64"
                what = "delta per period" if probe.kind == "counter" else "value"
                self.sources[probe.column] = (
                    f"{probe.kind} {probe.name}[port * {probe.stride} + {probe.offset}], {what},"
                    " sampled by the switch's queue monitor"
                )

    def _read_layout(self) -> tuple[np.dtype, dict]:
        for response in self._call:
            for update in response.update.update:
                if update.path.elem[-1].name == "layout":
                    layout = json.loads(update.val.json_val)
                    dtype = np.dtype([(name, "<u8") for name in layout["fields"]])
                    return dtype, layout
        raise ValueError("the switch's monitor stream ended before its layout")

    def batches(self) -> Iterator[list[Row]]:
        """Rows of each batch of records, in order, until close()."""
        for response in self._call:
            for update in response.update.update:
                name = update.path.elem[-1].name
                if name == "records":
                    yield self._rows(np.frombuffer(update.val.bytes_val, dtype=self._dtype))
                elif name == "missed":
                    self.missed = update.val.uint_val
                elif name == "overruns":
                    self.overruns = update.val.uint_val

    def _rows(self, records: np.ndarray) -> list[Row]:
        register_at = {cell: j for j, cell in enumerate(self._registers)}
        counter_at = {cell: k for k, cell in enumerate(self._counters)}
        rows: list[Row] = []
        for record in records:
            for i, port in enumerate(self._ports):
                q = f"q{i}."
                row: Row = {
                    "realtime_ns": int(record["realtime_ns"]),
                    "time_us": int(record["time_us"]),
                    "period": int(record["period"]),
                    "port": port,
                    "queue": QUEUE,
                }
                for field, column in QUEUE_FIELDS.items():
                    row[column] = int(record[q + field])
                departures = int(record[q + "departures"])
                total = int(record[q + "departed_sojourn_sum_us"])
                row["sojourn_mean_us"] = total / departures if departures else 0.0
                for probe in self._probes[port]:
                    cell = (probe.name, probe.index(port))
                    if probe.kind == "register":
                        value = int(record[f"r{register_at[cell]}"])
                    else:
                        value = int(record[f"c{counter_at[cell]}.packets"])
                    row[probe.column] = scaled(value, probe)
                rows.append(row)
        return rows

    def close(self) -> None:
        self._requests.put(None)
        self._call.cancel()
        self._channel.close()


def serves_monitor(grpc_addr: str, timeout_s: float = 10.0) -> bool:
    """Whether the switch's gNMI takes the monitor's packed (BYTES) stream."""
    with grpc.insecure_channel(grpc_addr) as channel:
        stub = gnmi_grpc.gNMIStub(channel)
        try:
            reply = stub.Capabilities(gnmi.CapabilityRequest(), timeout=timeout_s)
        except grpc.RpcError as exc:
            if exc.code() == grpc.StatusCode.UNIMPLEMENTED:
                return False
            raise
    return gnmi.Encoding.BYTES in reply.supported_encodings


def record(sampler: MonitorSampler, out: Path, duration_s: float | None, metadata: dict) -> int:
    """Write the monitor's rows until duration_s or SIGINT/SIGTERM; return how many."""
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()
        sampler.close()  # ends the blocking stream

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    timer = threading.Timer(duration_s, on_signal, (0, None)) if duration_s else None
    file_metadata = {
        **metadata,
        "period_us": sampler.layout["period_us"],
        "time_base": {
            "realtime_ns": "CLOCK_REALTIME when the switch took the sample, ns",
            "time_us": "the switch's clock (that of the P4 timestamps) at the sample, us",
            "period": "index of the sampling period since the monitor started",
        },
        "counters": "deltas per period",
        "sources": sampler.sources,
    }
    writer: SampleFile = open_sample_file(out, sampler.columns, file_metadata)
    written = 0
    try:
        if timer is not None:
            timer.start()
        for rows in sampler.batches():
            writer.write(rows)
            written += len(rows)
    except grpc.RpcError:
        # Cancelled to stop is how a run ends; anything else is the switch's error.
        if not stop.is_set():
            raise
    finally:
        if timer is not None:
            timer.cancel()
        writer.close()
        sampler.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return written
