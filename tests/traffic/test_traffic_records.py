"""Record files: atomic on close, readable parts after a kill, metadata in the footer."""

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from p4aqm.traffic.records import RecordWriter, parts_dir, read_records

SCHEMA = pa.schema([("seq", pa.int64()), ("retrans", pa.int64()), ("note", pa.string())])


def rows(start: int, stop: int) -> list[dict[str, object]]:
    return [
        {"seq": i, "retrans": None if i % 2 else i, "note": f"n{i}"} for i in range(start, stop)
    ]


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_close_writes_every_row_and_the_metadata(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"run{suffix}"
    writer = RecordWriter(path, SCHEMA, {"kind": "test"}, flush_interval_s=3600)
    for row in rows(0, 5):
        writer.add(row)
    writer.flush()
    for row in rows(5, 8):
        writer.add(row)
    assert parts_dir(path).is_dir() and not path.exists()
    writer.close({"rows": 8})
    assert not parts_dir(path).exists()
    frame, metadata = read_records(path)
    assert list(frame["seq"]) == list(range(8))
    assert frame["retrans"].isna().sum() == 4
    assert metadata == {"kind": "test", "summary": {"rows": 8}, "complete": True}
    if suffix == ".parquet":
        assert json.loads(pq.read_schema(path).metadata[b"p4aqm"])["complete"] is True
        assert pq.read_schema(path).field("retrans").type == pa.int64()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_killed_run_leaves_readable_parts(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    writer = RecordWriter(path, SCHEMA, {"kind": "test"}, flush_interval_s=0)
    for row in rows(0, 3):
        writer.add(row)  # each add flushes: three parts
    # No close: as after SIGKILL.
    frame, metadata = read_records(path)
    assert list(frame["seq"]) == [0, 1, 2]
    assert metadata == {"kind": "test", "complete": False}
    with pytest.raises(ValueError, match="left by a run that was killed"):
        RecordWriter(path, SCHEMA, {})


def test_bad_paths_are_refused_before_the_run(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"run.txt: records go to a .parquet file"):
        RecordWriter(tmp_path / "run.txt", SCHEMA, {})
    with pytest.raises(ValueError, match="does not exist"):
        RecordWriter(tmp_path / "no" / "run.parquet", SCHEMA, {})
