"""The smoke experiment end to end: `p4aqm run` on the dumbbell (RED, web and CBR
traffic, 30 s, two sweep points), then `p4aqm report`, checked against the raw files and
opened in headless Chromium."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from p4aqm.schema import Column
from programs import P4SRC, compile_program

if os.geteuid() != 0:
    pytest.skip("the dumbbell needs root (namespaces, veths)", allow_module_level=True)

from headless import CHROMIUM, check_page  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
P4AQM = str(Path(sys.executable).parent / "p4aqm")
DIRECTIONS = ("server_to_client", "client_to_server")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    build = tmp_path_factory.mktemp("build")
    for program in ("l3_forward", "red"):
        compile_program(P4SRC / f"{program}.p4", build)
    experiment = yaml.safe_load((REPO / "experiments" / "examples" / "smoke.yaml").read_text())
    experiment["topology"]["build_dir"] = str(build)
    experiment["traffic"]["web"]["calibration"] = str(REPO / "calibrations" / "web-tcpeval.yaml")
    folder = tmp_path_factory.mktemp("smoke")
    path = folder / "smoke.yaml"
    path.write_text(yaml.safe_dump(experiment))
    out = folder / "results"
    start = time.monotonic()
    run = subprocess.run(
        [P4AQM, "run", str(path), "-o", str(out)], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stdout + run.stderr
    report = subprocess.run(
        [P4AQM, "report", str(out)], capture_output=True, text=True, timeout=300
    )
    assert report.returncode == 0, report.stdout + report.stderr
    print(f"smoke experiment: run and report in {time.monotonic() - start:.0f} s")
    return out


def test_every_figure_file_exists_and_is_not_empty(results: Path) -> None:
    figures = results / "report" / "figures"
    stems = {p.stem for p in figures.iterdir()}
    assert {"response-time-cdf", "response-time-ccdf", "queue-histogram"} <= stems
    for stem in stems:
        for suffix in (".png", ".svg", ".csv"):
            path = figures / f"{stem}{suffix}"
            assert path.is_file() and path.stat().st_size > 0, path
    html = (results / "report" / "index.html").read_text()
    for stem in stems:
        assert f"figures/{stem}.png" in html or f"figures/{stem}.svg" in html, stem


def test_summary_utilisation_and_loss_are_the_raw_records(results: Path) -> None:
    summary = pd.read_csv(results / "report" / "summary.csv").set_index("point")
    points = sorted((results / "points").iterdir())
    assert len(points) == 2
    for folder in points:
        manifest = json.loads((folder / "manifest.json").read_text())
        assert manifest["status"] == "ok", manifest["error"]
        row = summary.loc[folder.name]
        throughput = pd.read_csv(folder / "throughput.csv")
        for direction in DIRECTIONS:
            rows = throughput[(throughput["direction"] == direction) & throughput["measured"]]
            bits = 8 * rows["bytes"].sum()
            rate = manifest["topology"]["bottleneck_rate_bps"]
            seconds = (
                rows["elapsed_s"]
                .diff()
                .fillna(rows["elapsed_s"].iloc[0] - manifest["experiment"]["warmup_s"])
                .sum()
            )
            utilisation = rows["utilisation"].mean()
            assert row[f"utilisation_{direction}"] == pytest.approx(utilisation, rel=1e-9)
            assert utilisation == pytest.approx(bits / rate / seconds, rel=0.02)
        monitor = pd.read_parquet(folder / "monitor-r2.parquet")
        window = manifest["window"]
        inside = monitor[
            (monitor[Column.REALTIME_NS] >= window["start_ns"])
            & (monitor[Column.REALTIME_NS] <= window["end_ns"])
        ]
        drops = sum(
            inside[c].sum()
            for c in (
                Column.TM_DROPS_DELTA,
                Column.EARLY_DROPS_DELTA,
                Column.FORCED_DROPS_DELTA,
                Column.OVERFLOW_DROPS_DELTA,
            )
        )
        offered = inside[Column.ARRIVALS_DELTA].sum() + drops
        assert row["loss_percent_server_to_client"] == pytest.approx(
            100 * drops / offered, rel=1e-9
        )
        assert offered > 0


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (scripts/setup.sh)")
def test_report_opens_in_headless_chromium(results: Path) -> None:
    page = check_page(results / "report" / "index.html")
    assert page.errors == [], page.errors
    assert page.images > 5 and page.broken_images == [], page.broken_images
