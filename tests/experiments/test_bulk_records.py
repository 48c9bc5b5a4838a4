"""How the report reads the bulk flows' records (traffic.bulk): the receiving end's
intervals in the window with the sending end's counters joined, the flows that never
connected, a killed run's parts, and results from before the records (iperf3 reports)."""

import json
import shutil
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_report import END_NS, START_NS, WINDOW_S, make_results, write_bulk

from p4aqm.report.load import PointData, ResultsError, load_point, load_results


@pytest.fixture
def point_folder(tmp_path: Path) -> Path:
    results = make_results(tmp_path / "r", points=1)
    return next((results / "points").iterdir())


def data_of(folder: Path) -> PointData:
    point = next(p for p in load_results(folder.parent.parent, "r") if p.folder == folder)
    return load_point(point)


def test_receiver_intervals_in_the_window_carry_the_sender_s_counters(
    point_folder: Path,
) -> None:
    bulk = data_of(point_folder).bulk
    assert list(bulk["t_s"]) == [float(t) for t in range(1, WINDOW_S + 1)]
    assert bulk["end_ns"].between(START_NS + 1, END_NS).all()
    sent = pd.read_parquet(point_folder / "bulk" / "flows0-sender.parquet")
    joined = bulk.merge(sent, on=["flow", "end_ns"], suffixes=("", "_sender"))
    assert len(joined) == len(bulk)
    assert (joined["retransmits"] == joined["retransmits_sender"]).all()
    assert (bulk["rtt_us"] == 20_000).all()
    assert (joined["bytes"] < joined["bytes_sender"]).all(), (
        "the receiver's bytes, not the sender's"
    )


def test_a_flow_that_never_connected_is_named_with_its_errors(point_folder: Path) -> None:
    sender = point_folder / "bulk" / "flows0-sender.parquet"
    rows = pd.read_parquet(sender)
    unconnected = {"attempts": 7, "errors": ["ETIMEDOUT"], "connected_ns": None}
    summary = {"flows": {"0": unconnected}, "unconnected": [0]}
    metadata = {"kind": "bulk_sender", "role": "connect", "send": True, "complete": True,
                "summary": summary}  # fmt: skip
    table = pa.Table.from_pandas(rows, preserve_index=False)
    pq.write_table(table.replace_schema_metadata({b"p4aqm": json.dumps(metadata).encode()}), sender)
    assert data_of(point_folder).bulk_unconnected == [
        "flow 0: never connected in 7 attempts (ETIMEDOUT)"
    ]


def test_a_killed_run_s_parts_are_read(point_folder: Path) -> None:
    receiver = point_folder / "bulk" / "flows0-receiver.parquet"
    rows = pd.read_parquet(receiver)
    receiver.unlink()
    parts = receiver.with_name(receiver.name + ".parts")
    parts.mkdir()
    write_bulk(parts / "part-000000.parquet", rows, send=False)
    assert len(data_of(point_folder).bulk) == WINDOW_S


def test_an_iperf3_report_from_before_the_records_is_an_error_naming_it(
    point_folder: Path,
) -> None:
    shutil.rmtree(point_folder / "bulk")
    (point_folder / "bulk").mkdir()
    (point_folder / "bulk" / "flow0.json").write_text("{}")
    with pytest.raises(ResultsError, match=r"flow0\.json: an iperf3 report.*rerun the point"):
        data_of(point_folder)
