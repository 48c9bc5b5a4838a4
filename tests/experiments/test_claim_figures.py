"""The claims' figures: a panel per response-time check instance with its two sides'
curves over the requests the check counts, checks over the same curves sharing a panel,
and no figure for a claim that compares no response times."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_findings import point_data

from p4aqm.experiments.claims import Claim
from p4aqm.report.claim_figures import _panels_of, claim_figures
from p4aqm.report.findings import Evaluator

REASON = {"reason": "a number for the test"}
RED = {"topology.right_to_left_aqm": {"discipline": "red"}}
FIFO = {"topology.right_to_left_aqm": {"discipline": "droptail"}}


def web(times_ms: list[float], reply_bytes: list[int]) -> pd.DataFrame:
    return pd.DataFrame({"outcome": "ok", "response_time_ms": times_ms, "reply_bytes": reply_bytes})


def runs(loads: tuple[int, ...] = (80, 98), repetitions: int = 3) -> list:
    """RED and FIFO at each load: small replies (5 KB) answered in 100 ms under RED and
    200 ms under FIFO, large ones (200 KB) in 1 s under both, shifted a little per run."""
    points = []
    for load in loads:
        for rep in range(1, repetitions + 1):
            for aqm, small_ms in (("red", 100.0), ("droptail", 200.0)):
                frame = web(
                    [small_ms + rep, small_ms + 2 * rep, 1000.0 + rep], [5_000, 5_000, 200_000]
                )
                points.append(point_data(f"{aqm}{load}_{rep}", aqm, load, {}, frame, rep))
    return points


def summary_of(points: list) -> pd.DataFrame:
    """The summary rows the findings read: each run's median and p90 response time."""
    rows = []
    for data, metrics in points:
        times = data.web["response_time_ms"]
        rows.append(
            {
                **metrics,
                "response_time_median_ms": float(np.percentile(times, 50)),
                "response_time_p90_ms": float(np.percentile(times, 90)),
            }
        )
    return pd.DataFrame(rows)


def draw(claims: list[dict], points: list, out: Path) -> list:
    datas = [d for d, _ in points]
    claimed = [Claim.model_validate(c) for c in claims]
    return claim_figures(claimed, datas, summary_of(points), out)


def test_a_panel_per_instance_with_each_side_pooled(tmp_path: Path) -> None:
    claim = {
        "claim": "RED is faster for short replies",
        "checks": [
            {
                "metric": "transfer_median_ms_le_10KB",
                "a": RED,
                "b": FIFO,
                "expect": "lower",
                "for_each": ["traffic.web.load_percent"],
            },
            # The same curves as the first check at 98 %: no panel of its own.
            {
                "metric": "transfer_median_ms_le_10KB",
                "a": RED,
                "b": FIFO,
                "expect": "same",
                "percent": 10,
                "where": {"traffic.web.load_percent": 98},
                **REASON,
            },
            # Not response times: not drawn.
            {"metric": "loss_percent_server_to_client", "a": RED, "b": FIFO, "expect": "lower"},
        ],
    }
    drawn = draw([claim], runs(), tmp_path)
    assert [f.stem for f in drawn] == ["claim-1-RED_is_faster_for_short_replies"]
    for suffix in ("png", "svg", "csv"):
        assert (
            tmp_path / "figures" / f"claim-1-RED_is_faster_for_short_replies.{suffix}"
        ).is_file()
    data = pd.read_csv(tmp_path / "figures" / "claim-1-RED_is_faster_for_short_replies.csv")
    # Two loads: two panels (the 98 % "same" check shares the "lower" one's), a and b in each.
    assert sorted(data["panel"].unique()) == [1, 2]
    for (_, side), curve in data.groupby(["panel", "side"]):
        # Only the replies of at most 10 KB, of three runs of two each, pooled.
        assert len(curve) == 6
        small_ms = 100 if side == "a" else 200
        assert curve["response_time_ms"].between(small_ms, small_ms + 6).all()
        assert curve["cumulative_percent"].iloc[-1] == 100
        assert np.all(np.diff(curve["cumulative_percent"]) > 0)


def test_the_panel_title_gives_each_checks_verdict() -> None:
    checks = [
        {"metric": "response_time_median_ms", "a": RED, "b": FIFO, "expect": "lower"},
        {"metric": "response_time_p90_ms", "a": RED, "b": FIFO, "expect": "higher"},
    ]
    points = runs(loads=(98,))
    evaluator = Evaluator([d for d, _ in points], summary_of(points))
    ((title, sides, selections),) = _panels_of(Claim(claim="c", checks=checks), evaluator)
    assert title.endswith("reproduced; response time p90 (ms): not reproduced"), title
    assert selections == {"a": "red", "b": "droptail"}
    assert [len(r) for r in sides["a"]] == [3, 3, 3]


def test_no_figure_without_response_time_comparisons(tmp_path: Path) -> None:
    claims = [
        {
            "claim": "loss",
            "checks": [
                {"metric": "loss_percent_server_to_client", "a": RED, "b": FIFO, "expect": "lower"}
            ],
        },
        {
            "claim": "no run of b",
            "checks": [
                {
                    "metric": "response_time_median_ms",
                    "a": RED,
                    "b": {"topology.right_to_left_aqm": {"discipline": "codel"}},
                    "expect": "lower",
                }
            ],
        },
    ]
    assert draw(claims, runs(), tmp_path) == []
    assert not (tmp_path / "figures").exists()


def test_gains_by_rtt_and_size_with_intervals(tmp_path: Path) -> None:
    """RED's gain over FIFO is 10 + k ms at 10 ms RTTs and 200 + 2k ms at 200 ms in run k:
    the figure's rows give each RTT's mean gain with its t interval over the three pairs."""
    points = []
    for rep in (1, 2, 3):
        for aqm, short_ms, long_ms in (
            ("red", 100 + rep, 400 + rep),
            ("droptail", 110 + 2 * rep, 600 + 3 * rep),
        ):
            frame = web([short_ms, long_ms], [50_000, 50_000]).assign(base_rtt_ms=[10.0, 200.0])
            points.append(point_data(f"{aqm}_{rep}", aqm, 35, {}, frame, rep))
    claim = {
        "claim": "RED helps most at long RTTs",
        "checks": [
            {
                "metric": "response_time_median_ms",
                "a": RED,
                "b": FIFO,
                "expect": "larger_gain",
                "requests": {"rtt_ms": [150, 200]},
                "versus": {"rtt_ms": [0, 54]},
                "by": 0,
            }
        ],
    }
    drawn = draw([claim], points, tmp_path)
    assert [f.stem for f in drawn] == ["claim-1-gain-RED_helps_most_at_long_RTTs"]
    rows = pd.read_csv(tmp_path / "figures" / f"{drawn[0].stem}.csv", dtype={"x": str})
    by_rtt = rows[rows["panel"] == "by base RTT (ms)"].set_index("x")
    assert by_rtt.loc["10", "gain"] == pytest.approx(12)
    assert by_rtt.loc["200", "gain"] == pytest.approx(204)
    # Three pairs 11, 12, 13 ms: t(0.975, 2) = 4.303 times 1 / sqrt(3).
    assert by_rtt.loc["10", "ci95_high"] - 12 == pytest.approx(4.303 / np.sqrt(3), rel=1e-3)
    assert (by_rtt["pairs"] == 3).all()
    by_size = rows[rows["panel"] == "by reply size"].set_index("x")
    # Every reply is 50 KB: only the 10-100 KB class has runs; each run's median of its two.
    assert list(by_size.index) == ["10–100 KB"]
    assert by_size.loc["10–100 KB", "gain"] == pytest.approx((12 + 204) / 2)
