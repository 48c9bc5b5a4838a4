"""The demo's verdict lines: RED − FIFO with its interval, paired by repetition; one
repetition is inconclusive whatever the difference."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from test_report import manifest, write_point, write_records

REPO = Path(__file__).resolve().parents[2]
VERDICT = REPO / "scripts" / "demo_verdict.py"
AQMS = {
    "droptail": {"discipline": "droptail", "limit_pkts": 120},
    "red": {"discipline": "red", "min_th": 30, "max_th": 90},
}


def demo_results(folder: Path, repetitions: int, red_scale: float) -> Path:
    """FIFO and RED points of each repetition drawn from the same seed (common random
    numbers), RED's response times scaled by red_scale."""
    index = 0
    for repetition in range(1, repetitions + 1):
        for discipline, aqm in AQMS.items():
            index += 1
            name = f"p{index:02d}_right_to_left_aqm-{discipline}_rep{repetition}"
            point = folder / "points" / name
            point.mkdir(parents=True)
            data = manifest(name, index, 98, repetition, "ok")
            data["sweep"] = {"topology.right_to_left_aqm": aqm}
            data["experiment"] |= {"seed": repetition, "topology": {"right_to_left_aqm": aqm}}
            (point / "manifest.json").write_text(json.dumps(data))
            write_point(point, np.random.default_rng(repetition), 98)
            if discipline == "red":
                web = pq.read_table(point / "web" / "c1.parquet").to_pandas()
                web["response_time_us"] = (web["response_time_us"] * red_scale).astype(np.int64)
                write_records(point / "web" / "c1.parquet", web, "web_client")
    return folder


def verdict(results: Path) -> list[str]:
    run = subprocess.run(
        [sys.executable, str(VERDICT), str(results)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return [line for line in run.stdout.splitlines() if line.startswith("demo verdict:")]


def test_a_difference_every_repetition_shows_is_reproduced_with_its_interval(
    tmp_path: Path,
) -> None:
    lines = verdict(demo_results(tmp_path, repetitions=3, red_scale=0.8))
    assert len(lines) == 2
    for line in lines:
        assert "−20" in line and "[" in line and "95 %" in line, line
        assert line.endswith("paired, n=3: reproduced"), line


def test_one_repetition_is_inconclusive(tmp_path: Path) -> None:
    lines = verdict(demo_results(tmp_path, repetitions=1, red_scale=0.8))
    assert all(line.endswith("inconclusive") and "no interval" in line for line in lines), lines


def test_red_slower_in_every_repetition_is_not_reproduced(tmp_path: Path) -> None:
    lines = verdict(demo_results(tmp_path, repetitions=3, red_scale=1.25))
    assert all(line.endswith("not reproduced") for line in lines), lines
