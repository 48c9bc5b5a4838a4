"""The sampler's output file: typed columns, the run's metadata, complete after SIGINT.

Columns are int64 (times, ports, packet and byte counts) or float64 (fixed-point values
scaled to packets). A Parquet file (the default) carries the metadata in its footer's
key-value metadata under "p4aqm"; a CSV file, which has no place for it, gets it beside
it in FILE.meta.json. Either way the metadata is a JSON object: the switch's config, the
period, the time base, and where each column comes from.

Parquet writes a row group every ROW_GROUP_S and its footer on close, which the sampler
reaches on SIGINT or SIGTERM; CSV is flushed after every write.
"""

import csv
import json
import time
from pathlib import Path
from typing import Literal, Protocol

import pyarrow as pa
import pyarrow.parquet as pq

ROW_GROUP_S = 1.0
ColumnType = Literal["int64", "float64"]
Row = dict[str, int | float]
_ARROW = {"int64": pa.int64(), "float64": pa.float64()}


class SampleFile(Protocol):
    def write(self, rows: list[Row]) -> None: ...

    def close(self) -> None: ...


class CsvFile:
    def __init__(self, path: Path, columns: dict[str, ColumnType], metadata: dict) -> None:
        Path(f"{path}.meta.json").write_text(json.dumps(metadata, indent=2) + "\n")
        self._file = path.open("w", newline="")
        self._csv = csv.DictWriter(self._file, fieldnames=list(columns))
        self._csv.writeheader()

    def write(self, rows: list[Row]) -> None:
        self._csv.writerows(rows)
        self._file.flush()

    def close(self) -> None:
        self._file.close()


class ParquetFile:
    def __init__(self, path: Path, columns: dict[str, ColumnType], metadata: dict) -> None:
        fields = [(name, _ARROW[kind]) for name, kind in columns.items()]
        self._schema = pa.schema(fields, metadata={"p4aqm": json.dumps(metadata)})
        self._writer = pq.ParquetWriter(path, self._schema)
        self._pending: list[Row] = []
        self._last_flush = time.monotonic()

    def write(self, rows: list[Row]) -> None:
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


def open_sample_file(path: Path, columns: dict[str, ColumnType], metadata: dict) -> SampleFile:
    if path.suffix == ".parquet":
        return ParquetFile(path, columns, metadata)
    if path.suffix == ".csv":
        return CsvFile(path, columns, metadata)
    raise ValueError(f"{path}: samples go to a .parquet file (the default) or a .csv file")


def read_metadata(path: Path) -> dict:
    """The metadata of a sample file, whichever its format."""
    if path.suffix == ".parquet":
        return json.loads(pq.read_schema(path).metadata[b"p4aqm"])
    return json.loads(Path(f"{path}.meta.json").read_text())
