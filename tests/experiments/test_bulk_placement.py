"""Where a bulk flow's iperf3 intervals fall in time: from the TCP trace of its data
stream (when its cookie arrived, which starts the test) where one holds it, else from
iperf3's start timestamp (the control connection's, in whole seconds).

Under heavy loss the two differ by seconds to minutes: a data stream whose cookie waits
out backed-off retransmission timeouts starts its test that much after the control
connection opened (the Parris et al. rerun of 2026-11-29: up to 100 s)."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_report import START_NS, WINDOW_S, make_results

from p4aqm.report.load import load_point, load_results
from p4aqm.traffic.bulk import data_connection

SECOND_NS = 1_000_000_000
SERVER, CLIENT = ("10.2.1.1", 5201), ("10.1.1.1", 40000)
PERIOD_MS = 500.0


def connected(local: tuple[str, int], remote: tuple[str, int]) -> dict:
    return {"connected": [{"local_host": local[0], "local_port": local[1],
                           "remote_host": remote[0], "remote_port": remote[1]}]}  # fmt: skip


def test_the_data_stream_is_read_from_either_end_s_report() -> None:
    stream = (*SERVER, *CLIENT)
    server = {"start": {"accepted_connection": {}, **connected(SERVER, CLIENT)}}
    client = {"start": {"connecting_to": {}, **connected(CLIENT, SERVER)}}
    assert data_connection(server) == stream
    assert data_connection(client) == stream, "the client's own view, reversed"
    assert data_connection(client | {"server_output_json": server}) == stream
    assert data_connection({"start": {}}) is None


def trace(cookie_at_ns: int) -> pd.DataFrame:
    """The server's samples of the data stream: open from the window's start, nothing
    received until the cookie, then a megabyte a second."""
    times = START_NS + np.arange(0, WINDOW_S * SECOND_NS, int(PERIOD_MS * 1e6))
    received = np.where(times >= cookie_at_ns, 37 + (times - cookie_at_ns) // 1000, 0)
    return pd.DataFrame({
        "realtime_ns": times, "src": SERVER[0], "sport": SERVER[1], "dst": CLIENT[0],
        "dport": CLIENT[1], "bytes_received": received.astype("uint64"), "bytes_acked": 0,
        "ca_state": 0, "snd_cwnd_pkts": 10, "srtt_us": 20_000,
    })  # fmt: skip


@pytest.fixture
def point_folder(tmp_path: Path) -> Path:
    results = make_results(tmp_path / "r", points=1)
    folder = next((results / "points").iterdir())
    report_path = folder / "bulk" / "flow0.json"
    report = json.loads(report_path.read_text())
    report["server_output_json"]["start"] = {"accepted_connection": {}, **connected(SERVER, CLIENT)}
    report_path.write_text(json.dumps(report))
    return folder


def bulk_of(folder: Path) -> pd.DataFrame:
    point = next(p for p in load_results(folder.parent.parent, "r") if p.folder == folder)
    return load_point(point).bulk


def write_trace(path: Path, frame: pd.DataFrame) -> None:
    """A tracer's file as p4aqm.traffic.tcp_trace writes it, with its period."""
    metadata = {"kind": "tcp_trace", "complete": True, "period_ms": PERIOD_MS}
    table = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(table.replace_schema_metadata({b"p4aqm": json.dumps(metadata).encode()}), path)


def test_intervals_start_when_the_cookie_arrived(point_folder: Path) -> None:
    # Without a trace: from iperf3's timestamp, the warm-up's start; the intervals end
    # 1, 2, ... s after it, so those ending 1 to WINDOW_S s into the window are kept.
    by_timestamp = bulk_of(point_folder)
    assert list(by_timestamp["t_s"]) == [float(t) for t in range(1, WINDOW_S + 1)]
    (point_folder / "tcp").mkdir()
    write_trace(point_folder / "tcp" / "s1.parquet", trace(START_NS + 4_200_000_000))
    placed = bulk_of(point_folder)
    # The first sample with data is at 4.5 s; the cookie came in the period before it,
    # placed at its middle: 4.25 s. The intervals end 1, 2, ... s after.
    assert list(placed["t_s"]) == pytest.approx([5.25, 6.25, 7.25, 8.25, 9.25])


def test_a_stream_with_data_in_the_trace_s_first_sample_keeps_the_timestamp(
    point_folder: Path,
) -> None:
    (point_folder / "tcp").mkdir()
    write_trace(point_folder / "tcp" / "s1.parquet", trace(START_NS - SECOND_NS))
    assert list(bulk_of(point_folder)["t_s"]) == [float(t) for t in range(1, WINDOW_S + 1)]
