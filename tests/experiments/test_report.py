"""`p4aqm report` on small synthetic results folders written here with known values (the
layout of experiments/README.md), and on a copy of a real one when there is one.

The expected numbers are computed from the raw files with numpy, not through the report's
code; the warm-up rows carry values far out of range, so that counting any of them shows.
"""

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from p4aqm.report.cli import main
from p4aqm.report.load import read_monitor
from p4aqm.schema import COUNTER_DELTAS, Column, class_column

START_NS = 1_795_487_201_000_000_000  # the window's start (CLOCK_REALTIME)
WINDOW_S = 10
WARMUP_S = 3
END_NS = START_NS + WINDOW_S * 1_000_000_000
SECOND_NS = 1_000_000_000
SAMPLE_NS = 10_000_000
CBR_INTERVAL_NS = 40_000_000
WARMUP_RESPONSE_US = 99_000_000  # no request inside the window takes this long
FAILED_ERROR = "RuntimeError: the queue monitor of r2 did not start: see monitor-r2.log"
# The demo's results, which scripts/setup.sh (and so CI) writes before the tests run.
REAL_RESULTS = Path(__file__).resolve().parents[2] / "results" / "demo"

# (name, load %, repetition, status): two repetitions of load 50, one ok of load 80, and
# the second repetition of load 80 failed.
POINTS = (
    ("p01_load_percent-50_rep1", 50, 1, "ok"),
    ("p01_load_percent-50_rep2", 50, 2, "ok"),
    ("p02_load_percent-80_rep1", 80, 1, "ok"),
    ("p02_load_percent-80_rep2", 80, 2, "failed"),
)


def write_records(path: Path, frame: pd.DataFrame, kind: str) -> None:
    """A record file as traffic.records writes it: Parquet with its metadata."""
    metadata = {"kind": kind, "complete": True}
    table = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(table.replace_schema_metadata({b"p4aqm": json.dumps(metadata).encode()}), path)


def write_monitor(path: Path, frame: pd.DataFrame, counters: str) -> None:
    """A monitor file with what its metadata says of its counters, as the samplers write."""
    metadata = {"period_us": 10_000, "counters": counters}
    table = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(table.replace_schema_metadata({b"p4aqm": json.dumps(metadata).encode()}), path)


def manifest(name: str, index: int, load: int, repetition: int, status: str) -> dict:
    ok = status == "ok"
    return {
        "status": status,
        "error": None if ok else FAILED_ERROR,
        "point": {"index": index, "name": name, "repetition": repetition},
        "sweep": {"traffic.web.load_percent": load},
        "experiment": {
            "name": "synthetic",
            "traffic": {"web": {"load_percent": float(load)}},
            "warmup_s": WARMUP_S,
            "duration_s": WINDOW_S,
            "repetitions": 2,
        },
        "web_users": 10 * load,
        "window": {"start_ns": START_NS, "end_ns": END_NS} if ok else None,
        "epoch_ns": START_NS - WARMUP_S * SECOND_NS,
        "git": {"commit": "0123456789abcdef", "dirty": False},
    }


def write_point(folder: Path, rng: np.random.Generator, load: int) -> None:
    """throughput.csv, monitor-r2.parquet, web/ and udp/ of one point: the warm-up before
    START_NS and a second after END_NS, both with values the window must not see."""
    seconds = np.arange(-WARMUP_S + 1, WINDOW_S + 1)
    rows = []
    for direction, mean in (("client_to_server", 0.1), ("server_to_client", load / 100)):
        utilisation = np.clip(rng.normal(mean, 0.05, len(seconds)), 0, 1)
        utilisation[seconds <= 0] = 7.0  # warm-up: impossible on purpose
        for second, u in zip(seconds, utilisation, strict=True):
            rows.append(
                {
                    "realtime_ns": START_NS + second * SECOND_NS,
                    "t_s": second + WARMUP_S,
                    "direction": direction,
                    "bytes": int(u * 10e6 / 8),
                    "bps": int(u * 10e6),
                    "utilisation": u,
                    "measured": bool(second > 0),
                }
            )
    pd.DataFrame(rows).to_csv(folder / "throughput.csv", index=False)

    times = np.arange(START_NS - WARMUP_S * SECOND_NS, END_NS + SECOND_NS, SAMPLE_NS)
    count = len(times)
    outside = (times < START_NS) | (times > END_NS)
    monitor = pd.DataFrame(
        {
            Column.REALTIME_NS: times,
            Column.TIME_US: (times - times[0]) // 1000,
            Column.PERIOD_INDEX: np.arange(count),
            Column.EGRESS_PORT: 100,
            Column.QID: 0,
            Column.QDEPTH_PKTS: rng.integers(0, 120, count),
            Column.ARRIVALS_DELTA: rng.integers(0, 12, count),
            Column.DEPARTURES_DELTA: rng.integers(0, 12, count),
            Column.TM_DROPS_DELTA: rng.binomial(1, 0.01, count),
            Column.OCCUPANCY_PKTS: 0,
            Column.AVG_PKTS: rng.uniform(0, 80, count),
            Column.MARKS_DELTA: rng.binomial(1, 0.05, count),
            Column.EARLY_DROPS_DELTA: rng.binomial(2, 0.05, count),
            Column.FORCED_DROPS_DELTA: rng.binomial(1, 0.02, count),
            Column.OVERFLOW_DROPS_DELTA: 0,
        }
    )
    monitor.loc[outside, Column.EARLY_DROPS_DELTA] = 500
    monitor.loc[outside, Column.QDEPTH_PKTS] = 10_000
    write_monitor(folder / "monitor-r2.parquet", monitor, COUNTER_DELTAS)

    web = folder / "web"
    web.mkdir()
    requests = 400
    starts = rng.integers(START_NS - WARMUP_S * SECOND_NS, END_NS + SECOND_NS, requests)
    response_us = rng.lognormal(np.log(200_000), 0.8, requests).astype(np.int64)
    response_us[(starts < START_NS) | (starts > END_NS)] = WARMUP_RESPONSE_US
    outcomes = rng.choice(
        ["ok", "timeout", "reset", "cancelled"], requests, p=[0.9, 0.04, 0.03, 0.03]
    )
    reply_bytes = rng.choice([500, 8_000, 50_000, 300_000], requests)
    clients = pd.DataFrame(
        {
            "start_ns": starts,
            "response_time_us": response_us,
            "request_bytes": 200,
            "reply_bytes": reply_bytes,
            "received_bytes": reply_bytes,
            "client_host": "c1",
            "server_host": "s1",
            "outcome": outcomes,
        }
    )
    write_records(web / "c1.parquet", clients, "web_client")
    # A server's per-connection records: not requests, which the report must leave out.
    servers = pd.DataFrame({"start_ns": starts, "duration_us": 1, "outcome": "ok"})
    write_records(web / "s1-server.parquet", servers, "web_server")

    udp = folder / "udp"
    udp.mkdir()
    send_ns = np.arange(START_NS - 2 * SECOND_NS, END_NS, CBR_INTERVAL_NS)
    received = rng.random(len(send_ns)) > 0.05
    received[-3:] = False  # the last packets lost: only the sender's summary tells
    owd_us = rng.uniform(38_000, 45_000, len(send_ns))
    packets = pd.DataFrame(
        {
            "flow_id": 0,
            "seq": np.arange(len(send_ns)),
            "send_ns": send_ns,
            "recv_ns": send_ns + (owd_us * 1000).astype(np.int64),
            "owd_us": owd_us,
            "payload_bytes": 1000,
            "dscp": 34,
        }
    )[received]
    write_records(udp / "cbr0.parquet", packets, "cbr_receiver")
    sender = {
        "flow_id": 0,
        "packets_sent": len(send_ns),
        "first_send_ns": int(send_ns[0]),
        "last_send_ns": int(send_ns[-1]),
    }
    (udp / "cbr0.json").write_text(json.dumps(sender))

    bulk = folder / "bulk"
    bulk.mkdir()
    # Its own generator, so that the other records' draws stay as they were.
    received, sent = bulk_intervals(np.random.default_rng(load))
    write_bulk(bulk / "flows0-receiver.parquet", received, send=False)
    write_bulk(bulk / "flows0-sender.parquet", sent, send=True)


def bulk_intervals(rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both ends' records (traffic.bulk) of one flow from the warm-up's start to a second
    past the window, 1-second intervals from the epoch: the warm-up's impossibly full."""
    ends = START_NS + np.arange(1 - WARMUP_S, WINDOW_S + 2) * SECOND_NS
    received = rng.integers(100_000, 1_000_000, len(ends))
    received[ends <= START_NS] = 10**9
    receiver = pd.DataFrame({"flow": 0, "end_ns": ends, "bytes": received})
    # The receiving end's sender-only columns are null, as traffic.bulk writes them.
    receiver = receiver.assign(retransmits=np.nan, snd_cwnd_bytes=np.nan, rtt_us=np.nan)
    sender = receiver.assign(
        bytes=received + 1000,
        retransmits=rng.integers(0, 5, len(ends)),
        snd_cwnd_bytes=14480,
        rtt_us=20_000,
    )
    return receiver, sender


def write_bulk(path: Path, frame: pd.DataFrame, send: bool) -> None:
    """One end's records as traffic.bulk writes them, with its metadata."""
    kind = "bulk_sender" if send else "bulk_receiver"
    role = "connect" if send else "listen"
    summary = {"flows": {"0": {"attempts": 1, "errors": []}}, "unconnected": []}
    metadata = {"kind": kind, "role": role, "send": send, "complete": True, "summary": summary}
    table = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(table.replace_schema_metadata({b"p4aqm": json.dumps(metadata).encode()}), path)


def make_results(folder: Path, seed: int = 1, points: int = len(POINTS)) -> Path:
    """A results folder of the first `points` of POINTS (fewer draw faster)."""
    rng = np.random.default_rng(seed)
    (folder / "points").mkdir(parents=True)
    (folder / "experiment.yaml").write_text("name: synthetic\n")
    for index, (name, load, repetition, status) in enumerate(POINTS[:points], 1):
        point = folder / "points" / name
        point.mkdir()
        text = json.dumps(manifest(name, (index + 1) // 2, load, repetition, status))
        (point / "manifest.json").write_text(text)
        if status == "ok":
            write_point(point, rng, load)
    return folder


def ok_points(results: Path) -> list[Path]:
    return [results / "points" / name for name, _, _, status in POINTS if status == "ok"]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    results = make_results(tmp_path_factory.mktemp("report") / "synthetic")
    out = results.parent / "out"
    assert main([str(results), "-o", str(out)]) == 0
    return results, out


def figure_stems(index: Path) -> list[str]:
    return re.findall(r'<img src="figures/([^"]+)\.png"', index.read_text())


def inside(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    return frame[(frame[column] >= START_NS) & (frame[column] <= END_NS)]


def test_every_figure_is_written_as_png_svg_and_csv(report: tuple[Path, Path]) -> None:
    results, out = report
    stems = figure_stems(out / "index.html")
    expected = {
        "response-time-cdf",
        "response-time-ccdf",
        "queue-histogram",
        "drops-by-cause",
        "axis-traffic.web.load_percent",
        "timelines",  # the points have a multimedia (cbr) flow
        "bulk-by-configuration",  # and a bulk flow
    }
    for point in ok_points(results):
        expected |= {f"{point.name}-{kind}" for kind in ("utilisation", "queue", "udp-delay")}
    assert set(stems) == expected
    for stem in stems:
        png, svg, csv = (out / "figures" / f"{stem}.{suffix}" for suffix in ("png", "svg", "csv"))
        assert png.read_bytes().startswith(b"\x89PNG"), png
        assert b"<svg" in svg.read_bytes()[:2000], svg
        assert len(pd.read_csv(csv)) > 0, csv
    assert not list(out.rglob(".*.tmp")), "a temporary file was left"


def test_summary_equals_what_the_raw_records_give(report: tuple[Path, Path]) -> None:
    results, out = report
    summary = pd.read_csv(out / "summary.csv").set_index("point")
    assert len(summary) == 3
    for point in ok_points(results):
        row = summary.loc[point.name]

        throughput = pd.read_csv(point / "throughput.csv")
        for direction in ("server_to_client", "client_to_server"):
            measured = throughput[(throughput["direction"] == direction) & throughput["measured"]]
            expected = np.mean(measured["utilisation"].to_numpy())
            assert row[f"utilisation_{direction}"] == pytest.approx(expected)

        monitor = inside(pd.read_parquet(point / "monitor-r2.parquet"), Column.REALTIME_NS)
        drops = sum(
            int(np.sum(monitor[c].to_numpy()))
            for c in (
                Column.TM_DROPS_DELTA,
                Column.EARLY_DROPS_DELTA,
                Column.FORCED_DROPS_DELTA,
                Column.OVERFLOW_DROPS_DELTA,
            )
        )
        offered = int(np.sum(monitor[Column.ARRIVALS_DELTA].to_numpy())) + drops
        assert row["loss_percent_server_to_client"] == pytest.approx(100 * drops / offered)
        assert np.isnan(row["loss_percent_client_to_server"])  # no monitor that way: n/a
        assert row["mean_queue_pkts_server_to_client"] == pytest.approx(
            np.mean(monitor[Column.QDEPTH_PKTS].to_numpy())
        )

        web = inside(pd.read_parquet(point / "web" / "c1.parquet"), "start_ns")
        ok = web[web["outcome"] == "ok"]
        assert row["requests_ok"] == len(ok)
        assert row["requests_failed"] == np.sum(web["outcome"].isin(["timeout", "reset"]))
        assert row["requests_unfinished"] == np.sum(web["outcome"] == "cancelled")
        response_ms = ok["response_time_us"].to_numpy() / 1e3
        assert row["response_time_median_ms"] == pytest.approx(np.median(response_ms))
        assert row["response_time_p99_ms"] == pytest.approx(np.percentile(response_ms, 99))
        small = ok[ok["reply_bytes"] <= 10_000]["response_time_us"].to_numpy() / 1e3
        assert row["transfer_median_ms_le_10KB"] == pytest.approx(np.median(small))

        # Every packet was sent at a known time: those inside the window, received or not.
        sender = json.loads((point / "udp" / "cbr0.json").read_text())
        send_ns = sender["first_send_ns"] + CBR_INTERVAL_NS * np.arange(sender["packets_sent"])
        sent = int(np.sum((send_ns >= START_NS) & (send_ns <= END_NS)))
        received = inside(pd.read_parquet(point / "udp" / "cbr0.parquet"), "send_ns")
        assert row["cbr_loss_percent"] == pytest.approx(100 * (sent - len(received)) / sent)
        assert row["cbr_owd_mean_ms"] == pytest.approx(np.mean(received["owd_us"]) / 1e3)

        # Bulk: the receiver's intervals ending inside the window, the one ending at its
        # start being the warm-up's last; the sender's retransmits over the same intervals.
        received = pd.read_parquet(point / "bulk" / "flows0-receiver.parquet")
        sent = pd.read_parquet(point / "bulk" / "flows0-sender.parquet")
        inside_window = (received["end_ns"] > START_NS) & (received["end_ns"] <= END_NS)
        bytes_in = received[inside_window]["bytes"].sum()
        assert row["bulk_goodput_mbps"] == pytest.approx(8 * bytes_in / WINDOW_S / 1e6)
        assert row["bulk_goodput_mbps"] < 10  # the warm-up's intervals are left out
        assert row["bulk_retransmits"] == sent[inside_window]["retransmits"].sum()
        assert row["bulk_flows_unconnected"] == 0


def test_the_warmup_is_left_out(report: tuple[Path, Path]) -> None:
    _, out = report
    summary = pd.read_csv(out / "summary.csv")
    assert (summary["utilisation_server_to_client"] <= 1).all()
    assert (summary["loss_percent_server_to_client"] < 50).all()
    cdf = pd.read_csv(out / "figures" / "response-time-cdf.csv")
    assert cdf["response_time_ms"].max() < WARMUP_RESPONSE_US / 1e3
    for point in ok_points(report[0]):
        queue = pd.read_csv(out / "figures" / f"{point.name}-queue.csv")
        assert queue["t_s"].between(0, WINDOW_S).all()
        assert queue[Column.QDEPTH_PKTS].max() < 10_000
        utilisation = pd.read_csv(out / "figures" / f"{point.name}-utilisation.csv")
        assert (utilisation["t_s"] > 0).all()
        udp = pd.read_csv(out / "figures" / f"{point.name}-udp-delay.csv")
        assert udp["t_s"].between(0, WINDOW_S).all()
        assert udp["seq"].min() == 0  # numbered from the first packet sent inside


def test_failed_points_are_listed_with_their_error(report: tuple[Path, Path]) -> None:
    _, out = report
    index = (out / "index.html").read_text()
    failed = index[index.index('id="failed"') :]
    assert "p02_load_percent-80_rep2" in failed
    assert "the queue monitor of r2 did not start" in failed
    assert "p02_load_percent-80_rep2" not in set(pd.read_csv(out / "summary.csv")["point"])


def test_repetitions_are_shown_with_their_spread(report: tuple[Path, Path]) -> None:
    _, out = report
    summary = pd.read_csv(out / "summary.csv")
    spread = pd.read_csv(out / "repetitions.csv")
    assert set(spread["configuration"]) == {"load_percent=50"}  # the only one run twice
    median = spread[spread["metric"] == "response_time_median_ms"].iloc[0]
    both = summary[summary["traffic.web.load_percent"] == 50]["response_time_median_ms"]
    assert median["repetitions"] == 2
    assert median["mean"] == pytest.approx(both.mean())
    assert (median["min"], median["max"]) == pytest.approx((both.min(), both.max()))
    # Two runs: the mean ± t(0.975, 1) standard errors.
    half = 12.7062 * both.std(ddof=1) / np.sqrt(2)
    interval = (median["ci95_low"], median["ci95_high"])
    assert interval == pytest.approx((both.mean() - half, both.mean() + half), rel=1e-4)
    along = pd.read_csv(out / "figures" / "axis-traffic.web.load_percent.csv")
    at_50 = along[(along["metric"] == "response_time_median_ms") & (along["axis_value"] == 50)]
    assert at_50["repetitions"].tolist() == [2]


def test_compare_labels_both_folders(tmp_path: Path) -> None:
    red = make_results(tmp_path / "red", seed=2, points=2)
    fifo = make_results(tmp_path / "fifo", seed=3, points=2)
    out = tmp_path / "compare"
    assert main(["--compare", str(red), str(fifo), "-o", str(out)]) == 0
    cdf = pd.read_csv(out / "figures" / "response-time-cdf.csv")
    assert set(cdf["results"]) == {"red", "fifo"}
    assert set(cdf["configuration"]) == {"red", "fifo"}
    summary = pd.read_csv(out / "summary.csv")
    assert summary.groupby("results").size().to_dict() == {"fifo": 2, "red": 2}
    index = (out / "index.html").read_text()
    assert "red vs fifo" in index
    # Both folders hold points of the same names: their figures must not overwrite.
    stems = figure_stems(out / "index.html")
    assert "red--p01_load_percent-50_rep1-queue" in stems
    assert "fifo--p01_load_percent-50_rep1-queue" in stems


def test_an_unreadable_record_file_is_listed_not_fatal(tmp_path: Path) -> None:
    results = make_results(tmp_path / "results", points=2)
    broken = results / "points" / "p01_load_percent-50_rep1" / "monitor-r2.parquet"
    broken.write_bytes(b"not parquet")
    out = tmp_path / "out"
    assert main([str(results), "-o", str(out)]) == 0
    failed = (out / "index.html").read_text().split('id="failed"')[1]
    assert "p01_load_percent-50_rep1" in failed and str(broken) in failed
    assert len(pd.read_csv(out / "summary.csv")) == 1


def bad_inputs(tmp_path: Path) -> list[tuple[Path, Path]]:
    """(the folder to report, the path the error must name)."""
    missing = tmp_path / "missing"
    not_results = tmp_path / "not-results"
    not_results.mkdir()
    empty = tmp_path / "empty"
    (empty / "points").mkdir(parents=True)
    garbled = make_results(tmp_path / "garbled", points=2)
    manifest_path = garbled / "points" / POINTS[1][0] / "manifest.json"
    manifest_path.write_text('{"status": "ok", ')
    return [
        (missing, missing),
        (not_results, not_results),
        (empty, empty / "points"),
        (garbled, manifest_path),
    ]


def test_bad_input_is_one_line_naming_the_path_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for folder, named in bad_inputs(tmp_path):
        assert main([str(folder), "-o", str(tmp_path / "out")]) == 2, folder
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(named) in err, err
        assert "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_old_monitor_files_load_with_the_new_columns(tmp_path: Path) -> None:
    """Results folders written before p4aqm/schema.py's names still report: the monitor's
    files (counters as deltas per period) are renamed, the P4Runtime sampler's (counters
    as totals since its first read) are renamed and differenced per port."""
    monitor = pd.DataFrame(
        {
            "realtime_ns": [10, 20, 30],
            "time_us": [1, 2, 3],
            "period": [0, 1, 2],
            "port": 2,
            "queue": 0,
            "depth_pkts": [4, 5, 6],
            "depth_bytes": [400, 500, 600],
            "arrivals": [3, 1, 2],
            "departures": [2, 2, 2],
            "tm_drops": [0, 1, 0],
            "avg_pkts": [1.5, 2.5, 3.5],
            "marks": [0, 2, 1],
            "tcp_early_drops": [1, 0, 3],  # a CBT class's counter
        }
    )
    write_monitor(tmp_path / "monitor.parquet", monitor, "deltas per period")
    loaded = read_monitor(tmp_path / "monitor.parquet")
    assert list(loaded.columns) == [
        Column.REALTIME_NS,
        Column.TIME_US,
        Column.PERIOD_INDEX,
        Column.EGRESS_PORT,
        Column.QID,
        Column.QDEPTH_PKTS,
        Column.QDEPTH_BYTES,
        Column.ARRIVALS_DELTA,
        Column.DEPARTURES_DELTA,
        Column.TM_DROPS_DELTA,
        Column.AVG_PKTS,
        Column.MARKS_DELTA,
        class_column("tcp", Column.EARLY_DROPS_DELTA),
    ]
    assert (loaded.to_numpy() == monitor.to_numpy()).all()  # the values as they were

    # Two ports a tick, as the P4Runtime sampler wrote them.
    polled = pd.DataFrame(
        {
            "realtime_ns": [10, 10, 20, 20, 30, 30],
            "t_us": [0, 0, 10, 10, 20, 20],
            "port": [2, 3, 2, 3, 2, 3],
            "occupancy_pkts": [5, 1, 6, 0, 7, 2],
            "marks": [0, 0, 4, 1, 9, 1],
            "early_drops": [0, 0, 0, 2, 1, 5],
        }
    )
    write_monitor(tmp_path / "polled.parquet", polled, "totals since the run's first read")
    loaded = read_monitor(tmp_path / "polled.parquet")
    assert list(loaded.columns) == [
        Column.REALTIME_NS,
        Column.ELAPSED_US,
        Column.EGRESS_PORT,
        Column.OCCUPANCY_PKTS,
        Column.MARKS_DELTA,
        Column.EARLY_DROPS_DELTA,
    ]
    assert loaded[Column.MARKS_DELTA].tolist() == [0, 0, 4, 1, 5, 0]
    assert loaded[Column.EARLY_DROPS_DELTA].tolist() == [0, 0, 0, 2, 1, 3]
    assert str(loaded[Column.MARKS_DELTA].dtype) == "int64"
    assert loaded[Column.OCCUPANCY_PKTS].tolist() == [5, 1, 6, 0, 7, 2]  # a value: kept


@pytest.mark.skipif(
    not REAL_RESULTS.is_dir(), reason=f"no demo results at {REAL_RESULTS}: run scripts/setup.sh"
)
def test_a_real_results_folder_renders(tmp_path: Path) -> None:
    results = tmp_path / "demo"
    shutil.copytree(REAL_RESULTS, results, ignore=shutil.ignore_patterns("report*"))
    assert main([str(results)]) == 0
    out = results / "report"
    stems = figure_stems(out / "index.html")
    assert {"response-time-cdf", "response-time-ccdf", "queue-histogram"} <= set(stems)
    for stem in stems:
        for suffix in ("png", "svg", "csv"):
            assert (out / "figures" / f"{stem}.{suffix}").stat().st_size > 0
    summary = pd.read_csv(out / "summary.csv")
    manifests = [json.loads(m.read_text()) for m in results.glob("points/*/manifest.json")]
    assert len(summary) == sum(m["status"] == "ok" for m in manifests)
    assert summary["utilisation_server_to_client"].between(0, 1.2).all()
    assert summary["response_time_median_ms"].notna().all()


def test_findings_end_the_report_and_are_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = make_results(tmp_path / "synthetic")
    claims = tmp_path / "claims.yaml"
    claims.write_text(
        "name: synthetic\nduration_s: 10\nfindings:\n"
        "  - claim: More load, more utilisation\n    note: synthetic points\n    checks:\n"
        "      - metric: utilisation_server_to_client\n"
        "        a: {traffic.web.load_percent: 80}\n        b: {traffic.web.load_percent: 50}\n"
        "        expect: higher\n        percent: 20\n        reason: a test threshold\n"
        "      - metric: utilisation_server_to_client\n"
        "        a: {traffic.web.load_percent: 110}\n        b: {traffic.web.load_percent: 50}\n"
        "        expect: higher\n"
    )
    out = tmp_path / "out"
    assert main([str(results), "-o", str(out), "--findings", str(claims)]) == 0
    printed = capsys.readouterr().out
    # Load 80 ran once, so its one pair with load 50 gives no interval: inconclusive.
    assert "INCONCLUSIVE: More load, more utilisation" in printed
    assert "no data" in printed  # no point ran at 110 %
    findings = pd.read_csv(out / "findings.csv", keep_default_na=False)
    assert findings["verdict"].tolist() == ["inconclusive", "inconclusive", "no data"]
    assert findings.loc[1, "b"].endswith("n=2]")  # load 50 ran twice
    # The README's table: the claim in bold with its verdict, then each check's row.
    table = (out / "findings.md").read_text().splitlines()
    assert table[2] == "| **More load, more utilisation** |  |  |  |  | **inconclusive** |"
    assert len(table) == 2 + 3 and table[4].endswith("| no data |")
    index = (out / "index.html").read_text()
    assert index.rindex('<h2 id="findings">') > index.rindex('<h2 id="definitions">')
    assert "More load, more utilisation" in index[index.index('id="findings"') :]


def test_findings_with_an_unknown_metric_are_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = make_results(tmp_path / "synthetic", points=1)
    claims = tmp_path / "claims.yaml"
    claims.write_text(
        "name: synthetic\nduration_s: 10\nfindings:\n  - claim: c\n    checks:\n"
        "      - {metric: speed, a: {seed: 1}, expect: about, about: 1, within: 1, reason: r}\n"
    )
    assert main([str(results), "--findings", str(claims)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "claims.yaml: findings: findings[0].checks[0].metric: unknown metric 'speed'" in err


def test_response_time_by_rtt_gives_each_pair_s_median(tmp_path: Path) -> None:
    """Two RTT groups with known response times: the figure's data are their medians,
    for all replies and for replies over 10 KB; one group alone draws nothing."""
    from p4aqm.report import figures
    from p4aqm.report.grouping import Labeller
    from p4aqm.report.load import Point, PointData

    web = pd.DataFrame(
        {
            "outcome": ["ok"] * 6 + ["timeout"],
            "response_time_ms": [10.0, 20.0, 30.0, 100.0, 300.0, 500.0, 9999.0],
            "reply_bytes": [500, 20_000, 30_000, 500, 500, 50_000, 50_000],
            "base_rtt_ms": [4.0, 4.0, 4.0, 200.0, 200.0, 200.0, 200.0],
        }
    )
    manifest = {"point": {"name": "p"}, "sweep": {}, "experiment": {}, "status": "ok"}
    point = Point("r", tmp_path, manifest)
    data = PointData(point, web, pd.DataFrame(), [], [], pd.DataFrame())
    drawn = figures.response_time_by_rtt([data], Labeller([point]), tmp_path)
    assert drawn is not None and drawn.stem == "response-time-by-rtt"
    table = pd.read_csv(tmp_path / "figures" / "response-time-by-rtt.csv")
    medians = {(r.replies, r.base_rtt_ms): r.median_response_time_ms for r in table.itertuples()}
    assert medians == {
        ("all", 4.0): 20.0,
        ("all", 200.0): 300.0,
        ("> 10 KB", 4.0): 25.0,
        ("> 10 KB", 200.0): 500.0,
    }
    one_group = PointData(
        point, web[web["base_rtt_ms"] == 4.0], pd.DataFrame(), [], [], pd.DataFrame()
    )
    assert figures.response_time_by_rtt([one_group], Labeller([point]), tmp_path) is None


def test_findings_come_from_the_points_manifests_by_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A point's manifest holds the experiment as it ran, findings included: the report
    checks those claims without --findings, and has no findings section without them."""
    results = make_results(tmp_path / "synthetic", points=3)
    assert main([str(results), "-o", str(tmp_path / "none")]) == 0
    assert not (tmp_path / "none" / "findings.csv").exists()
    assert 'id="findings"' not in (tmp_path / "none" / "index.html").read_text()
    claim = {
        "claim": "More load, more utilisation",
        "checks": [
            {
                "metric": "utilisation_server_to_client",
                "a": {"traffic.web.load_percent": 80},
                "b": {"traffic.web.load_percent": 50},
                "expect": "higher",
            }
        ],
    }
    for point in ok_points(results):
        path = point / "manifest.json"
        manifest = json.loads(path.read_text())
        manifest["experiment"]["findings"] = [claim]
        path.write_text(json.dumps(manifest))
    capsys.readouterr()
    assert main([str(results), "-o", str(tmp_path / "out")]) == 0
    assert "INCONCLUSIVE: More load, more utilisation" in capsys.readouterr().out
    assert (tmp_path / "out" / "findings.csv").exists()
