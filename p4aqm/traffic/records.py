"""Record files: typed columns, the run's metadata, and what a killed run leaves behind.

While a run goes, the rows gathered every `flush_interval_s` become one Parquet part in
FILE.parts/, each written under a temporary name and renamed, so a part is whole or
absent. A run killed outright (SIGKILL, a crashed namespace) keeps FILE.parts/, which
read_records reads. On close the parts and the rows since are written as FILE, again
through a temporary name, and FILE.parts/ is removed. Appending row groups to FILE itself
would not survive a kill: a Parquet file is unreadable until its footer is written.

A Parquet FILE (the default) carries the run's metadata as JSON in its schema metadata
under "p4aqm"; a CSV FILE gets it beside, in FILE.meta.json, as the queue sampler does.
"""

import asyncio
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

METADATA_KEY = b"p4aqm"
SUFFIXES = (".parquet", ".csv")


def parts_dir(path: Path) -> Path:
    return path.with_name(path.name + ".parts")


def check_records_path(path: Path) -> None:
    """Refuse a records path before a run starts rather than losing the run at its end."""
    if path.suffix not in SUFFIXES:
        raise ValueError(f"{path}: records go to a .parquet file (the default) or a .csv file")
    if not path.parent.is_dir():
        raise ValueError(f"{path}: directory {path.parent} does not exist")
    if parts_dir(path).exists():
        raise ValueError(
            f"{path}: {parts_dir(path)} exists, left by a run that was killed; "
            "read it with traffic.records.read_records and move it away"
        )


class RecordWriter:
    def __init__(
        self,
        path: Path,
        schema: pa.Schema,
        metadata: dict[str, Any],
        flush_interval_s: float = 5.0,
    ) -> None:
        check_records_path(path)
        self.path = path
        self._metadata = metadata
        self._schema = schema
        self.flush_interval_s = flush_interval_s
        self._pending: list[dict[str, Any]] = []
        self._parts: list[Path] = []
        self._last_flush = time.monotonic()

    def add(self, row: dict[str, Any]) -> None:
        self._pending.append(row)
        self.flush_if_due()

    def flush_if_due(self) -> None:
        """Flush if flush_interval_s has passed; for idle moments too, so that rows do not
        wait in memory for the next row."""
        if time.monotonic() - self._last_flush >= self.flush_interval_s:
            self.flush()

    def flush(self) -> None:
        """Write the pending rows as the next part."""
        self._last_flush = time.monotonic()
        if not self._pending:
            return
        directory = parts_dir(self.path)
        directory.mkdir(exist_ok=True)
        part = directory / f"part-{len(self._parts):06d}.parquet"
        metadata = {**self._metadata, "complete": False}
        _write_atomically(part, self._table(self._pending, metadata))
        self._parts.append(part)
        self._pending = []

    def close(self, summary: dict[str, Any]) -> None:
        """Write FILE with every row and the metadata plus the summary of the run."""
        metadata = {**self._metadata, "summary": summary, "complete": True}
        tables = [pq.read_table(part) for part in self._parts]
        tables.append(self._table(self._pending, metadata))
        table = pa.concat_tables(tables).replace_schema_metadata(_schema_metadata(metadata))
        _write_atomically(self.path, table)
        if self.path.suffix == ".csv":
            meta_path = Path(f"{self.path}.meta.json")
            tmp = meta_path.with_name(f".{meta_path.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(metadata, indent=2) + "\n")
            tmp.replace(meta_path)
        shutil.rmtree(parts_dir(self.path), ignore_errors=True)
        self._pending = []
        self._parts = []

    def _table(self, rows: list[dict[str, Any]], metadata: dict[str, Any]) -> pa.Table:
        schema = self._schema.with_metadata(_schema_metadata(metadata))
        return pa.Table.from_pylist(rows, schema=schema)


async def flush_periodically(records: RecordWriter) -> None:
    """For asyncio programs: flush while no rows come (cancel the task to stop it)."""
    while True:
        await asyncio.sleep(records.flush_interval_s)
        records.flush_if_due()


def read_records(path: Path) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The rows and metadata of FILE, or of FILE.parts/ if the run was killed."""
    if path.exists():
        if path.suffix == ".csv":
            return pd.read_csv(path), json.loads(Path(f"{path}.meta.json").read_text())
        table = pq.read_table(path)
        return table.to_pandas(), json.loads(table.schema.metadata[METADATA_KEY])
    parts = sorted(parts_dir(path).glob("part-*.parquet"))
    if not parts:
        raise FileNotFoundError(f"{path}: neither the file nor parts of a killed run exist")
    table = pa.concat_tables([pq.read_table(part) for part in parts])
    return table.to_pandas(), json.loads(table.schema.metadata[METADATA_KEY])


def _schema_metadata(metadata: dict[str, Any]) -> dict[bytes, bytes]:
    return {METADATA_KEY: json.dumps(metadata).encode()}


def _write_atomically(path: Path, table: pa.Table) -> None:
    # The temporary file sits in the same directory so that the rename cannot cross file
    # systems and a reader sees the old file or the new one, never half of one.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    if path.suffix == ".csv":
        pa_csv.write_csv(table, tmp)
    else:
        pq.write_table(table, tmp)
    tmp.replace(path)
