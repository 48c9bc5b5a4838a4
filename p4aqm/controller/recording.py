"""A recording of a switch's AQM state, taken on a thread of its own while a run goes on.

On `p4aqm switch` the rows come from the switch's own queue monitor (a gNMI stream,
monitor_sampler.py); a switch without it (BMv2) is read over P4Runtime every period
(sampler.py). Either way the rows are kept in memory for `dataframe()` and, if a path
is given, written to a Parquet or CSV file that is complete once `stop()` returns,
whatever stopped the run (sample_file.py).
"""

import threading
import time
from pathlib import Path
from types import TracebackType

import grpc
import pandas as pd

from p4aqm.controller.config import PipelineFiles, SwitchTarget
from p4aqm.controller.monitor_sampler import MonitorSampler, serves_monitor
from p4aqm.controller.sample_file import Row, SampleFile, open_sample_file
from p4aqm.controller.sampler import Probe, Sampler

JOIN_TIMEOUT_S = 30.0


class MonitorRecording:
    """Rows of one sampler; `stop()` ends it and closes the file."""

    def __init__(
        self,
        sampler: MonitorSampler | Sampler,
        period_s: float,
        out: Path | None,
        metadata: dict,
    ) -> None:
        self.sampler = sampler
        self.period_s = period_s
        self.out = out
        self.metadata = metadata
        self.rows: list[Row] = []
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._writer: SampleFile | None = None
        self._thread = threading.Thread(target=self._take, name="monitor-recording", daemon=True)

    @classmethod
    def start(
        cls,
        switch: SwitchTarget,
        pipeline: PipelineFiles,
        ports: dict[int, list[Probe]],
        period_s: float,
        out: Path | None = None,
        metadata: dict | None = None,
    ) -> "MonitorRecording":
        if not ports:
            raise ValueError("a monitor needs at least one port with an AQM")
        if period_s <= 0:
            raise ValueError(f"the sampling period must be positive, not {period_s} s")
        sampler: MonitorSampler | Sampler
        if serves_monitor(switch.grpc_addr):
            sampler = MonitorSampler(switch.grpc_addr, ports, period_s)
        else:
            # Digests reach only the primary client: the recording takes over from the
            # session that applied the config (election id one higher).
            sampler = Sampler(
                switch.grpc_addr,
                switch.device_id,
                pipeline.p4info,
                ports,
                period_s=period_s,
                election_id=switch.election_id + 1,
            )
        return cls.of(sampler, period_s, out, metadata)

    @classmethod
    def of(
        cls,
        sampler: MonitorSampler | Sampler,
        period_s: float,
        out: Path | None = None,
        metadata: dict | None = None,
    ) -> "MonitorRecording":
        """A recording of `sampler`, started."""
        recording = cls(sampler, period_s, out, metadata or {})
        recording._thread.start()
        return recording

    @property
    def running(self) -> bool:
        """False once the recording has ended, by stop() or by an error."""
        return self._thread.is_alive()

    def __enter__(self) -> "MonitorRecording":
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _write(self, rows: list[Row]) -> None:
        if self.out is not None and self._writer is None:
            # Opened at the first rows, which settle where each column comes from.
            meta = self.sampler.file_metadata(self.period_s, self.metadata)
            self._writer = open_sample_file(self.out, self.sampler.columns, meta)
        if self._writer is not None:
            self._writer.write(rows)
        self.rows += rows

    def _take(self) -> None:
        try:
            if isinstance(self.sampler, MonitorSampler):
                for rows in self.sampler.batches():
                    self._write(rows)
            else:
                self._poll(self.sampler)
        except grpc.RpcError as exc:
            # Cancelled by stop() is how a recording ends; anything else is the switch's.
            if not self._stop.is_set():
                self.error = exc
        except BaseException as exc:  # noqa: BLE001 - kept for stop() to raise in the caller
            self.error = exc
        finally:
            if self._writer is not None:
                self._writer.close()
            if not isinstance(self.sampler, MonitorSampler):
                self.sampler.close()  # here, not in stop(): a read may be under way

    def _poll(self, sampler: Sampler) -> None:
        start = time.monotonic()
        next_tick = start
        while not self._stop.is_set():
            now = time.monotonic()
            self._write(sampler.read(round((now - start) * 1e6), time.time_ns()))
            # Ticks stay on the period's grid: a slow read skips ticks instead of drifting.
            next_tick += self.period_s
            if next_tick < time.monotonic():
                skipped = (time.monotonic() - next_tick) // self.period_s + 1
                next_tick += skipped * self.period_s
            self._stop.wait(max(0.0, next_tick - time.monotonic()))

    @property
    def missed(self) -> int:
        """Periods the switch's monitor could not sample in time (0 when polling)."""
        return getattr(self.sampler, "missed", 0)

    @property
    def overruns(self) -> int:
        """Records the switch's monitor dropped for a full buffer (0 when polling)."""
        return getattr(self.sampler, "overruns", 0)

    def stop(self) -> int:
        """End the recording, close its file and return how many rows it has; raises
        what ended it early, if anything did."""
        if not self._stop.is_set():
            self._stop.set()
            if isinstance(self.sampler, MonitorSampler):
                self.sampler.close()  # ends the blocking stream; the thread closes the file
            self._thread.join(JOIN_TIMEOUT_S)
            if self._thread.is_alive():
                raise RuntimeError(f"the monitor recording did not stop in {JOIN_TIMEOUT_S} s")
        if self.error is not None:
            raise self.error
        return len(self.rows)

    def dataframe(self) -> pd.DataFrame:
        """The rows so far, one per period and port, with the sampler's columns."""
        return pd.DataFrame(self.rows, columns=list(self.sampler.columns))
