"""Bulk flows in a point on the dumbbell (traffic.bulk): two uploads and a download
(`reverse`), each group's ends recording from the point's epoch; what their receivers
read is what crossed the bottleneck in their direction, and the report's goodput is it."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from p4aqm.traffic.records import read_records
from programs import P4SRC, compile_program

if os.geteuid() != 0:
    pytest.skip("the dumbbell needs root (namespaces, veths)", allow_module_level=True)

P4AQM = str(Path(sys.executable).parent / "p4aqm")
WARMUP_S, DURATION_S = 2, 6
EXPERIMENT = {
    "name": "bulk-point",
    "topology": {
        "bottleneck_rate_bps": 10_000_000,
        "left_to_right_aqm": {"discipline": "droptail", "limit_pkts": 60},
    },
    "traffic": {
        "bulk": [
            {"client": "c1", "server": "s1", "flows": 2, "congestion_control": "reno"},
            {"client": "c2", "server": "s2", "flows": 1, "reverse": True},
        ]
    },
    "duration_s": DURATION_S,
    "warmup_s": WARMUP_S,
    "sample_period_ms": 10,
    "seed": 1,
}


@pytest.fixture(scope="module")
def point(tmp_path_factory: pytest.TempPathFactory) -> Path:
    build = tmp_path_factory.mktemp("build")
    for program in ("l3_forward", "droptail"):
        compile_program(P4SRC / f"{program}.p4", build)
    folder = tmp_path_factory.mktemp("bulk")
    experiment = {**EXPERIMENT, "topology": {**EXPERIMENT["topology"], "build_dir": str(build)}}
    (folder / "bulk.yaml").write_text(yaml.safe_dump(experiment))
    out = folder / "results"
    run = subprocess.run(
        [P4AQM, "run", str(folder / "bulk.yaml"), "-o", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    report = subprocess.run(
        [P4AQM, "report", str(out)], capture_output=True, text=True, timeout=300
    )
    assert report.returncode == 0, report.stdout + report.stderr
    return next((out / "points").iterdir())


def window_rows(point: Path, name: str) -> pd.DataFrame:
    manifest = json.loads((point / "manifest.json").read_text())
    start_ns, end_ns = manifest["window"]["start_ns"], manifest["window"]["end_ns"]
    rows = pd.read_parquet(point / "bulk" / f"{name}.parquet")
    return rows[(rows["end_ns"] > start_ns) & (rows["end_ns"] <= end_ns)]


def bottleneck_bytes(point: Path, direction: str) -> int:
    throughput = pd.read_csv(point / "throughput.csv")
    return throughput[(throughput["direction"] == direction) & throughput["measured"]][
        "bytes"
    ].sum()


def test_each_group_has_both_ends_records_of_every_flow(point: Path) -> None:
    names = sorted(p.name for p in (point / "bulk").iterdir())
    assert names == [
        "flows0-receiver.parquet", "flows0-sender.parquet",
        "flows1-receiver.parquet", "flows1-sender.parquet",
    ]  # fmt: skip
    assert set(window_rows(point, "flows0-receiver")["flow"]) == {0, 1}
    assert set(window_rows(point, "flows1-sender")["flow"]) == {2}
    for name in ("flows0-sender", "flows1-sender"):
        assert (window_rows(point, name)["rtt_us"] > 20_000).all(), "the dumbbell's RTT"


def test_what_the_receivers_read_is_what_crossed_the_bottleneck(point: Path) -> None:
    # The bottleneck counts headers (about 3 % at 1500 bytes) and the intervals end on
    # the epoch's half seconds, not the throughput's seconds: within 8 %.
    upload = window_rows(point, "flows0-receiver")["bytes"].sum()
    download = window_rows(point, "flows1-receiver")["bytes"].sum()
    assert upload == pytest.approx(bottleneck_bytes(point, "client_to_server"), rel=0.08)
    assert download == pytest.approx(bottleneck_bytes(point, "server_to_client"), rel=0.08)
    assert upload > 0.8 * 10e6 / 8 * DURATION_S, "the uploads fill the bottleneck"


def test_every_flow_connected_at_the_epoch(point: Path) -> None:
    # Started and ready before the point set its epoch, the connecting ends open their
    # flows at once (in the run of 2026-11-30 before this, 4-23 s late).
    epoch_ns = json.loads((point / "manifest.json").read_text())["epoch_ns"]
    for name in ("flows0-sender", "flows1-receiver"):
        _, metadata = read_records(point / "bulk" / f"{name}.parquet")
        assert metadata["epoch_ns"] == epoch_ns
        for state in metadata["summary"]["flows"].values():
            assert 0 <= state["connected_ns"] - epoch_ns < 500_000_000, state


def test_the_report_s_goodput_is_the_receivers_bytes(point: Path) -> None:
    summary = pd.read_csv(point.parent.parent / "report" / "summary.csv").set_index("point")
    row = summary.loc[point.name]
    received = sum(window_rows(point, f"flows{i}-receiver")["bytes"].sum() for i in (0, 1))
    assert row["bulk_goodput_mbps"] == pytest.approx(8 * received / DURATION_S / 1e6, rel=1e-6)
    assert row["bulk_flows_unconnected"] == 0
