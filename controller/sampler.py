"""Sampling a program's queue state over P4Runtime into CSV or Parquet.

Each tick sends one ReadRequest for every register cell and counter cell the ports'
disciplines name (see each discipline's `probes()`), and writes one row per port: the
time since sampling began, the port, and each probe's value in its unit (packets, not
fixed point). Our switch answers register reads; BMv2's P4Runtime server answers them
UNIMPLEMENTED. There, after the first refusal, the occupancy and average columns come
from the programs' queue-sample digests instead (digest_feed.py: sent at arrivals, at
most one per period, so a column holds the latest arrival's value), the counters are
read as before, and the other register columns are dropped; stderr says which.

The file is complete whatever ends the run: CSV is flushed after every tick, and a
Parquet file writes a row group every second and its footer on SIGINT or SIGTERM.
"""

import csv
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Literal, Protocol

import grpc
import pyarrow as pa
import pyarrow.parquet as pq
from finsy.proto import p4i, p4r, p4r_grpc
from google.protobuf import text_format

from controller.digest_feed import DigestFeed, QueueSample

ROW_GROUP_S = 1.0


@dataclass(frozen=True)
class Probe:
    """One column: a register or counter cell, times `scale`. The cell is the port's
    index, or `port * stride + offset` for state kept per port and class."""

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


class SampleWriter(Protocol):
    def write(self, rows: list[dict[str, float]]) -> None: ...

    def close(self) -> None: ...


class CsvWriter:
    def __init__(self, path: Path, columns: list[str]) -> None:
        self._file = path.open("w", newline="")
        self._csv = csv.DictWriter(self._file, fieldnames=columns)
        self._csv.writeheader()

    def write(self, rows: list[dict[str, float]]) -> None:
        self._csv.writerows(rows)
        self._file.flush()

    def close(self) -> None:
        self._file.close()


class ParquetWriter:
    def __init__(self, path: Path, columns: list[str]) -> None:
        self._schema = pa.schema([(c, pa.float64()) for c in columns])
        self._writer = pq.ParquetWriter(path, self._schema)
        self._pending: list[dict[str, float]] = []
        self._last_flush = time.monotonic()

    def write(self, rows: list[dict[str, float]]) -> None:
        self._pending += rows
        if time.monotonic() - self._last_flush >= ROW_GROUP_S:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            self._writer.write_table(pa.Table.from_pylist(self._pending, schema=self._schema))
            self._pending = []
        self._last_flush = time.monotonic()

    def close(self) -> None:
        self._flush()
        self._writer.close()


def open_writer(path: Path, columns: list[str]) -> SampleWriter:
    if path.suffix == ".parquet":
        return ParquetWriter(path, columns)
    if path.suffix == ".csv":
        return CsvWriter(path, columns)
    raise ValueError(f"{path}: samples go to a .csv or .parquet file")


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
        self.columns = ["t_s", "port", *dict.fromkeys(p.column for _, p in self._cells)]

    def read(self, t_s: float) -> list[dict[str, float]]:
        rows: dict[int, dict[str, float]] = {}
        try:
            entities = [e for reply in self._stub.Read(self._request) for e in reply.entities]
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.UNIMPLEMENTED or not self._drop_registers():
                raise
            entities = [e for reply in self._stub.Read(self._request) for e in reply.entities]
        for (port, probe), entity in zip(self._cells, entities, strict=True):
            if probe.kind == "register":
                value = int.from_bytes(entity.register_entry.data.bitstring, "big")
            else:
                value = entity.counter_entry.data.packet_count
            rows.setdefault(port, {"t_s": t_s, "port": port})[probe.column] = _scaled(value, probe)
        if self._feed is not None:
            latest = self._feed.latest()
            for port, probe in self._digest_cells:
                sample = _latest_sample(latest, port, probe.traffic_class)
                if sample is not None:
                    value = sample.occupancy if probe.digest == "occupancy" else sample.avg
                    row = rows.setdefault(port, {"t_s": t_s, "port": port})
                    row[probe.column] = _scaled(value, probe)
        return list(rows.values())

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
            from_digests = sorted({p.column for _, p in self._digest_cells})
            print(f"sampler: {from_digests} from queue-sample digests", file=sys.stderr)
        dropped = sorted({p.column for _, p in registers if p.digest is None})
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


def _scaled(value: int, probe: Probe) -> float:
    # Counts stay integers; only scaled values (fixed point) become floats.
    return value * probe.scale if probe.scale != 1.0 else value


def _latest_sample(
    latest: dict[tuple[int, int], QueueSample], port: int, traffic_class: int | None
) -> QueueSample | None:
    if traffic_class is not None:
        return latest.get((port, traffic_class))
    samples = [s for (p, _), s in latest.items() if p == port]
    return max(samples, key=lambda s: s.time_us) if samples else None


def sample(sampler: Sampler, out: Path, period_s: float, duration_s: float | None) -> int:
    """Sample every period_s until duration_s or SIGINT/SIGTERM; return the rows written."""
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    writer = open_writer(out, sampler.columns)
    written = 0
    start = time.monotonic()
    next_tick = start
    try:
        while not stop.is_set():
            now = time.monotonic()
            if duration_s is not None and now - start >= duration_s:
                break
            rows = sampler.read(round(now - start, 6))
            writer.write(rows)
            written += len(rows)
            # Ticks stay on the period's grid: a slow read skips ticks instead of drifting.
            next_tick += period_s
            if next_tick < time.monotonic():
                missed = (time.monotonic() - next_tick) // period_s + 1
                next_tick += missed * period_s
            stop.wait(max(0.0, next_tick - time.monotonic()))
    finally:
        writer.close()
        sampler.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return written
