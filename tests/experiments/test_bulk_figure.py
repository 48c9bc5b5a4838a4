"""The bulk-by-configuration figure: per configuration, each run's goodput and
retransmits with their mean and interval; no panel for a metric no point has (no
tracer: no congestion events), and no figure without bulk flows."""

import math
from pathlib import Path

import pandas as pd
import pytest

from p4aqm.report.bulk_figure import bulk_by_configuration
from p4aqm.report.grouping import Labeller
from p4aqm.report.load import Point, PointData


def point(rules: str | None, repetition: int) -> PointData:
    manifest = {
        "status": "ok",
        "point": {"name": f"{rules}_{repetition}", "repetition": repetition},
        "sweep": {"tuning": rules},
        "experiment": {"name": "synthetic", "seed": repetition},
    }
    empty = pd.DataFrame()
    return PointData(
        Point("r", Path(f"{rules}_{repetition}"), manifest), empty, empty, [], [], empty
    )


def summary(goodputs: list[float], retransmits: list[float]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "point": [f"p{i}" for i in range(len(goodputs))],
            "bulk_goodput_mbps": goodputs,
            "bulk_retransmits": retransmits,
            "congestion_events": [math.nan] * len(goodputs),
        }
    )


def test_runs_and_means_per_configuration(tmp_path: Path) -> None:
    datas = [point("untuned", 1), point("untuned", 2), point("tuned", 1), point("tuned", 2)]
    table = summary([4.0, 6.0, 30.0, 34.0], [0.0, 2.0, 100.0, 140.0])
    drawn = bulk_by_configuration(datas, table, Labeller([d.point for d in datas]), tmp_path)
    assert drawn is not None and drawn.stem == "bulk-by-configuration"
    data = pd.read_csv(tmp_path / "figures" / "bulk-by-configuration.csv")
    assert set(data["metric"]) == {"bulk_goodput_mbps", "bulk_retransmits"}
    # Configurations in the order their points come: untuned, then tuned.
    untuned, tuned = data[data["metric"] == "bulk_goodput_mbps"].itertuples()
    assert "untuned" in untuned.configuration and "untuned" not in tuned.configuration
    assert tuned.mean == pytest.approx(32.0) and untuned.runs == 2
    assert untuned.ci95_low < 5.0 < untuned.ci95_high


def test_no_figure_without_bulk_flows(tmp_path: Path) -> None:
    datas = [point("untuned", 1)]
    table = summary([math.nan], [math.nan])
    assert bulk_by_configuration(datas, table, Labeller([d.point for d in datas]), tmp_path) is None
