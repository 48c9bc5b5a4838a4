"""Sampling through the switch's own queue monitor, over gNMI Subscribe.

On `p4aqm switch` the dataplane samples every period itself (p4aqm/switch/gnmi/monitor.py):
the traffic manager's depth and counts for each AQM port's queue, the register cells
and counter cells the ports' disciplines name (their `probes()`), all at one instant,
stamped with the switch's clock and CLOCK_REALTIME. The records arrive in batches; this
module turns each into one row per port: no P4Runtime read per sample, and no period
lost to a slow reader (a late monitor says how many periods it missed).

Switches without the monitor (BMv2) are sampled over P4Runtime instead (sampler.py).
"""

import json
import queue
from collections.abc import Iterator

import grpc
import numpy as np
from finsy import GNMIPath
from finsy.proto import gnmi, gnmi_grpc

from p4aqm.controller.sample_file import ColumnType, Row
from p4aqm.controller.sampler import Probe, scaled
from p4aqm.schema import (
    COUNTER_DELTAS,
    MONITOR_LAYOUT,
    MONITOR_MISSED,
    MONITOR_OVERRUNS,
    MONITOR_RECORDS,
    RECORD_QUEUE_FIELDS,
    RECORD_SOJOURN_SUM,
    RECORD_TIME_FIELDS,
    Column,
    Group,
    container_path,
    counter_cell_path,
    register_cell_path,
)

QUEUE = 0  # v1model's single queue per port, unless priority queues are configured


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
        paths = [container_path(Group.QUEUE_STATE, p, QUEUE) for p in self._ports]
        paths += [register_cell_path(n, i) for n, i in self._registers]
        paths += [counter_cell_path(n, i) for n, i in self._counters]
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
            **dict.fromkeys(RECORD_TIME_FIELDS.values(), "int64"),
            Column.EGRESS_PORT: "int64",
            Column.QID: "int64",
            **dict.fromkeys(RECORD_QUEUE_FIELDS.values(), "int64"),
            Column.SOJOURN_MEAN_US: "float64",
        }
        self.sources = {
            column: "the switch's queue monitor (traffic manager)" for column in self.columns
        }
        for port in self._ports:
            for probe in ports[port]:
                self.columns[probe.sample_column] = "float64" if probe.scale != 1.0 else "int64"
                self.sources[probe.sample_column] = (
                    f"{probe.source}, sampled by the switch's queue monitor"
                )

    def _read_layout(self) -> tuple[np.dtype, dict]:
        for response in self._call:
            for update in response.update.update:
                if update.path.elem[-1].name == MONITOR_LAYOUT[-1]:
                    layout = json.loads(update.val.json_val)
                    dtype = np.dtype([(name, "<u8") for name in layout["fields"]])
                    return dtype, layout
        raise ValueError("the switch's monitor stream ended before its layout")

    def batches(self) -> Iterator[list[Row]]:
        """Rows of each batch of records, in order, until close()."""
        for response in self._call:
            for update in response.update.update:
                name = update.path.elem[-1].name
                if name == MONITOR_RECORDS[-1]:
                    yield self._rows(np.frombuffer(update.val.bytes_val, dtype=self._dtype))
                elif name == MONITOR_MISSED[-1]:
                    self.missed = update.val.uint_val
                elif name == MONITOR_OVERRUNS[-1]:
                    self.overruns = update.val.uint_val

    def _rows(self, records: np.ndarray) -> list[Row]:
        register_at = {cell: j for j, cell in enumerate(self._registers)}
        counter_at = {cell: k for k, cell in enumerate(self._counters)}
        rows: list[Row] = []
        for record in records:
            for i, port in enumerate(self._ports):
                q = f"q{i}."
                row: Row = {column: int(record[f]) for f, column in RECORD_TIME_FIELDS.items()}
                row |= {Column.EGRESS_PORT: port, Column.QID: QUEUE}
                for field, column in RECORD_QUEUE_FIELDS.items():
                    row[column] = int(record[q + field])
                departures = row[Column.DEPARTURES_DELTA]
                total = int(record[q + RECORD_SOJOURN_SUM])
                row[Column.SOJOURN_MEAN_US] = total / departures if departures else 0.0
                for probe in self._probes[port]:
                    cell = (probe.name, probe.index(port))
                    if probe.kind == "register":
                        value = int(record[f"r{register_at[cell]}"])
                    else:
                        value = int(record[f"c{counter_at[cell]}.packets"])
                    row[probe.sample_column] = scaled(value, probe)
                rows.append(row)
        return rows

    def file_metadata(self, period_s: float, extra: dict) -> dict:
        """A sample file's metadata: `extra` (the switch's config, say), the period (the
        switch's, which `period_s` was rounded to), the time base, each column's source."""
        return {
            **extra,
            "period_us": self.layout["period_us"],
            "time_base": {
                Column.REALTIME_NS: "CLOCK_REALTIME when the switch took the sample",
                Column.TIME_US: "the switch's clock (that of the P4 timestamps) at the sample",
                Column.PERIOD_INDEX: "sampling periods since the monitor started",
            },
            "counters": COUNTER_DELTAS,
            "sources": self.sources,
        }

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
