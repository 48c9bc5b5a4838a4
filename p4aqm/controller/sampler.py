"""Sampling a program's queue state over P4Runtime into CSV or Parquet.

Each tick sends one ReadRequest for every register cell and counter cell the ports'
disciplines name (see each discipline's `probes()`), and writes one row per port: the
wall-clock time of the read (`realtime_ns`, CLOCK_REALTIME, to line up with ping, iperf
or a traffic generator's logs), the time since the run began (`elapsed_us`), the port
(`egress_port`), and each probe's value in its unit (packets, not fixed point). Counters
are deltas, as in the queue monitor's files: the packets counted since the row before
(0 in the first), under `<counter>_delta` (p4aqm/schema.py); a skipped tick's count goes
to the next row.

Our switch answers register reads; BMv2's P4Runtime server answers them UNIMPLEMENTED.
There, after the first refusal, the occupancy and average columns come from the
programs' queue-sample digests instead (digest_feed.py: sent at arrivals, at most one per
period, so a column holds the latest arrival's value), the counters are read as before,
and the other register columns are dropped; stderr and the file's metadata say which.

The file (sample_file.py) is complete whatever ends the run, SIGINT and SIGTERM
included, and carries the run's metadata.
"""

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import grpc
from finsy.proto import p4i, p4r, p4r_grpc
from google.protobuf import text_format

from p4aqm.controller.digest_feed import DigestFeed, QueueSample
from p4aqm.controller.sample_file import ColumnType, Row
from p4aqm.schema import COUNTER_DELTAS, Column, counter_column


@dataclass(frozen=True)
class Probe:
    """One column: a register or counter cell, times `scale`. The cell is the port's
    index, or `port * stride + offset` for state kept per port and class. `column`
    names the quantity; a counter's file column is its delta's (`sample_column`)."""

    column: str
    kind: Literal["register", "counter"]
    name: str
    scale: float = 1.0
    stride: int = 1
    offset: int = 0
    # Where a register probe's value is in a queue-sample digest, for switches that do
    # not read registers; `traffic_class` None takes the port's latest sample.
    digest: Literal["occupancy", "avg"] | None = None
    traffic_class: int | None = None

    def index(self, port: int) -> int:
        return port * self.stride + self.offset

    @property
    def sample_column(self) -> str:
        """The column of a sample file: a register's value as `column`, a counter's
        delta per period as counter_column(column)."""
        return counter_column(self.column) if self.kind == "counter" else str(self.column)

    @property
    def source(self) -> str:
        """Where the column comes from, for a sample file's metadata."""
        cell = f"{self.kind} {self.name}[port * {self.stride} + {self.offset}]"
        return f"{cell}, delta per period" if self.kind == "counter" else cell


class Sampler:
    """One P4Runtime Read per tick for every probe of every port."""

    def __init__(
        self,
        grpc_addr: str,
        device_id: int,
        p4info_path: Path,
        ports: dict[int, list[Probe]],
        period_s: float = 0.1,
        election_id: int = 1,
    ) -> None:
        p4info = text_format.Parse(p4info_path.read_text(), p4i.P4Info())
        self._p4info = p4info
        self._device_id = device_id
        self._election_id = election_id
        self._period_s = period_s
        self._feed: DigestFeed | None = None
        self._digest_cells: list[tuple[int, Probe]] = []
        ids = {
            "register": {r.preamble.name: r.preamble.id for r in p4info.registers},
            "counter": {c.preamble.name: c.preamble.id for c in p4info.counters},
        }
        self._channel = grpc.insecure_channel(grpc_addr)
        self._stub = p4r_grpc.P4RuntimeStub(self._channel)
        self._request = p4r.ReadRequest(device_id=device_id)
        self._cells: list[tuple[int, Probe]] = []
        # Each counter cell's count at the previous read, which a row's delta is from.
        self._previous: dict[tuple[int, str], int] = {}
        for port, probes in sorted(ports.items()):
            for probe in probes:
                if probe.name not in ids[probe.kind]:
                    raise ValueError(f"{p4info_path}: no {probe.kind} named '{probe.name}'")
                entity = self._request.entities.add()
                if probe.kind == "register":
                    entity.register_entry.register_id = ids["register"][probe.name]
                    entity.register_entry.index.index = probe.index(port)
                else:
                    entity.counter_entry.counter_id = ids["counter"][probe.name]
                    entity.counter_entry.index.index = probe.index(port)
                self._cells.append((port, probe))
        self.columns: dict[str, ColumnType] = dict.fromkeys(
            (Column.REALTIME_NS, Column.ELAPSED_US, Column.EGRESS_PORT), "int64"
        )
        for _, probe in self._cells:
            self.columns[probe.sample_column] = "float64" if probe.scale != 1.0 else "int64"
        self.sources = {probe.sample_column: probe.source for _, probe in self._cells}

    def read(self, elapsed_us: int, realtime_ns: int) -> list[Row]:
        rows: dict[int, Row] = {}
        try:
            entities = [e for reply in self._stub.Read(self._request) for e in reply.entities]
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.UNIMPLEMENTED or not self._drop_registers():
                raise
            entities = [e for reply in self._stub.Read(self._request) for e in reply.entities]

        def row(port: int) -> Row:
            first = {
                Column.REALTIME_NS: realtime_ns,
                Column.ELAPSED_US: elapsed_us,
                Column.EGRESS_PORT: port,
            }
            return rows.setdefault(port, first)

        for (port, probe), entity in zip(self._cells, entities, strict=True):
            if probe.kind == "register":
                value = int.from_bytes(entity.register_entry.data.bitstring, "big")
            else:
                count = entity.counter_entry.data.packet_count
                value = count - self._previous.get((port, probe.column), count)
                self._previous[(port, probe.column)] = count
            row(port)[probe.sample_column] = scaled(value, probe)
        if self._feed is not None:
            latest = self._feed.latest()
            for port, probe in self._digest_cells:
                sample = _latest_sample(latest, port, probe.traffic_class)
                if sample is not None:
                    value = sample.occupancy if probe.digest == "occupancy" else sample.avg
                    row(port)[probe.sample_column] = scaled(value, probe)
        return list(rows.values())

    def file_metadata(self, period_s: float, extra: dict) -> dict:
        """A sample file's metadata: `extra` (the switch's config, say), the period, the
        time base, and each column's source."""
        return {
            **extra,
            "period_us": round(period_s * 1e6),
            "time_base": {
                Column.REALTIME_NS: "CLOCK_REALTIME of the sampling host when the read was sent",
                Column.ELAPSED_US: "monotonic time since the run's first read",
            },
            "counters": COUNTER_DELTAS,
            "sources": self.sources,
        }

    def _drop_registers(self) -> bool:
        """Go on without the register cells; False if there were none to drop."""
        kept = [
            (cell, e)
            for cell, e in zip(self._cells, self._request.entities, strict=True)
            if cell[1].kind != "register"
        ]
        if len(kept) == len(self._cells):
            return False
        registers = [(port, p) for port, p in self._cells if p.kind == "register"]
        self._digest_cells = [(port, p) for port, p in registers if p.digest is not None]
        if self._digest_cells:
            self._feed = DigestFeed(
                self._channel,
                self._p4info,
                self._device_id,
                self._election_id,
                sorted({port for port, _ in self._digest_cells}),
                self._period_s,
            )
            from_digests = sorted({p.sample_column for _, p in self._digest_cells})
            for column in from_digests:
                self.sources[column] = "queue-sample digest (latest arrival)"
            print(f"sampler: {from_digests} from queue-sample digests", file=sys.stderr)
        dropped = sorted({p.sample_column for _, p in registers if p.digest is None})
        print(
            f"sampler: the switch does not read registers; sampling without {dropped}",
            file=sys.stderr,
        )
        self._cells = [cell for cell, _ in kept]
        del self._request.entities[:]
        self._request.entities.extend(e for _, e in kept)
        return True

    def close(self) -> None:
        if self._feed is not None:
            self._feed.close()
        self._channel.close()


def scaled(value: int, probe: Probe) -> int | float:
    # Counts stay integers; only scaled values (fixed point) become floats.
    return value * probe.scale if probe.scale != 1.0 else value


def _latest_sample(
    latest: dict[tuple[int, int], QueueSample], port: int, traffic_class: int | None
) -> QueueSample | None:
    if traffic_class is not None:
        return latest.get((port, traffic_class))
    samples = [s for (p, _), s in latest.items() if p == port]
    return max(samples, key=lambda s: s.time_us) if samples else None
