"""The findings table: each expectation judged on synthetic points whose numbers are known,
the verdicts of claims, bad checks named, and the study files' claims all checkable."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from p4aqm.experiments.claims import Claim
from p4aqm.experiments.spec import ExperimentError, load_experiment
from p4aqm.report.findings import (
    NO_DATA,
    NOT,
    PARTLY,
    REPRODUCED,
    Evaluator,
    FindingsError,
    check_metric,
    claim_verdict,
    findings_table,
    selects,
)
from p4aqm.report.load import Point, PointData
from p4aqm.report.metrics import METRICS

STUDIES = Path(__file__).resolve().parents[2] / "experiments" / "studies"
# Hosts' one-way access delays (us): c1-s1 is a 10 ms pair, c2-s1 a 200 ms pair.
HOSTS = {"c1": 5_000, "c2": 100_000, "s1": 0}


def point_data(
    name: str, aqm: str, load: int, metrics: dict[str, float], web: pd.DataFrame | None = None
) -> tuple[PointData, dict[str, float]]:
    """A point running `aqm` at `load` % whose summary row holds metrics (NaN elsewhere)."""
    experiment = {
        "name": "synthetic",
        "topology": {"right_to_left_aqm": {"discipline": aqm, "limit_pkts": 100}},
        "traffic": {"web": {"load_percent": load}},
    }
    manifest = {
        "status": "ok",
        "point": {"name": name},
        "sweep": {},
        "experiment": experiment,
        "window": {"start_ns": 0, "end_ns": 10**10},
    }
    if web is None:
        web = pd.DataFrame(columns=["outcome", "response_time_ms", "reply_bytes"])
    data = PointData(Point("r", Path(name), manifest), web, pd.DataFrame(), [], [], pd.DataFrame())
    return data, {**dict.fromkeys(METRICS, math.nan), **metrics}


def table(claims: list[dict], points: list[tuple[PointData, dict]]) -> pd.DataFrame:
    datas = [d for d, _ in points]
    summary = pd.DataFrame([m for _, m in points])
    return findings_table([Claim.model_validate(c) for c in claims], datas, summary)


def check(**fields: object) -> dict:
    return {
        "metric": "response_time_median_ms",
        "a": {"topology.right_to_left_aqm": {"discipline": "red"}},
        "b": {"topology.right_to_left_aqm": {"discipline": "droptail"}},
        **fields,
    }


def verdicts(frame: pd.DataFrame) -> list[str]:
    return frame["verdict"].tolist()


def medians(red: list[float], fifo: list[float]) -> list[tuple[PointData, dict]]:
    points = [
        point_data(f"red{i}", "red", 98, {"response_time_median_ms": v}) for i, v in enumerate(red)
    ]
    points += [
        point_data(f"fifo{i}", "droptail", 98, {"response_time_median_ms": v})
        for i, v in enumerate(fifo)
    ]
    return points


def test_lower_is_judged_on_the_means_and_the_spread_of_repetitions() -> None:
    claim = {"claim": "RED is faster", "checks": [check(expect="lower", percent=10)]}
    separated = table([claim], medians([80, 85], [100, 105]))
    assert verdicts(separated) == [REPRODUCED, REPRODUCED]
    assert separated.loc[1, "a"] == "82.5 ms [80–85, n=2]"
    assert separated.loc[1, "measured"] == "-19.5 %"
    # The means differ by 20 %, but one repetition of RED is slower than one of FIFO.
    overlapping = table([claim], medians([60, 105], [100, 105]))
    assert verdicts(overlapping) == [PARTLY, PARTLY]
    assert verdicts(table([claim], medians([95], [100]))) == [NOT, NOT]  # -5 %, not -10 %
    assert verdicts(table([claim], medians([120], [100]))) == [NOT, NOT]


def test_same_at_most_higher_differ_and_about() -> None:
    points = medians([104], [100])
    cases = {
        "same 5": (check(expect="same", percent=5), REPRODUCED),
        "same 3": (check(expect="same", percent=3), NOT),
        "at_most 5": (check(expect="at_most", percent=5), REPRODUCED),
        "higher 3": (check(expect="higher", percent=3), REPRODUCED),
        "higher 5": (check(expect="higher", percent=5), NOT),
        "differ 3": (check(expect="differ", percent=3), REPRODUCED),
        "a alone about 100": (check(expect="about", about=100, within=5, b={}), REPRODUCED),
        "a - b about 4": (check(expect="about", about=4, within=0.5), REPRODUCED),
        "a - b about 10": (check(expect="about", about=10, within=5), NOT),
    }
    for name, (fields, expected) in cases.items():
        frame = table([{"claim": name, "checks": [fields]}], points)
        assert frame.loc[1, "verdict"] == expected, (name, frame.loc[1].to_dict())


def test_for_each_makes_one_check_per_value_and_where_filters() -> None:
    points = [
        point_data("red80", "red", 80, {"response_time_median_ms": 100}),
        point_data("fifo80", "droptail", 80, {"response_time_median_ms": 101}),
        point_data("red98", "red", 98, {"response_time_median_ms": 150}),
        point_data("fifo98", "droptail", 98, {"response_time_median_ms": 100}),
    ]
    each = check(expect="same", percent=5, for_each=["traffic.web.load_percent"])
    frame = table([{"claim": "RED ~ FIFO", "checks": [each]}], points)
    assert verdicts(frame) == [PARTLY, REPRODUCED, NOT]
    assert "load_percent=80" in frame.loc[1, "check"] and "load_percent=98" in frame.loc[2, "check"]
    assert "red against droptail" in frame.loc[1, "check"]
    only = check(expect="same", percent=5, where={"traffic.web.load_percent": 80})
    assert verdicts(table([{"claim": "at 80", "checks": [only]}], points)) == [REPRODUCED] * 2


def web(rng: np.random.Generator, client: str, median_ms: float, sigma: float) -> pd.DataFrame:
    n = 4000
    return pd.DataFrame(
        {
            "outcome": "ok",
            "response_time_ms": rng.lognormal(np.log(median_ms), sigma, n),
            "reply_bytes": rng.choice([5_000, 50_000], n),
            "client_host": client,
            "server_host": "s1",
            # As the report's loader gives it: twice the two access delays.
            "base_rtt_ms": 2 * (HOSTS[client] + HOSTS["s1"]) / 1e3,
        }
    )


def test_crossover_needs_each_side_faster_somewhere() -> None:
    rng = np.random.default_rng(1)
    narrow = point_data("red", "red", 98, {}, web(rng, "c1", 200, 0.3))
    wide = point_data("fifo", "droptail", 98, {}, web(rng, "c1", 150, 1.2))
    faster = point_data("fifo", "droptail", 98, {}, web(rng, "c1", 400, 0.3))
    crossover = {"claim": "a trade-off", "checks": [check(expect="crossover")]}
    # Same median region, different spread: FIFO is faster below, slower in the tail.
    assert verdicts(table([crossover], [narrow, wide])) == [REPRODUCED, REPRODUCED]
    # RED faster everywhere: no crossover.
    assert verdicts(table([crossover], [narrow, faster])) == [NOT, NOT]


def test_requests_subsets_and_larger_gain_use_the_pairs_base_rtt() -> None:
    rng = np.random.default_rng(2)
    # IW10 ("red" here) gains 300 ms on the 210 ms pair (c2) and nothing on the 10 ms one.
    iw10 = pd.concat([web(rng, "c1", 100, 0.1), web(rng, "c2", 700, 0.1)])
    iw3 = pd.concat([web(rng, "c1", 100, 0.1), web(rng, "c2", 1000, 0.1)])
    points = [point_data("iw10", "red", 35, {}, iw10), point_data("iw3", "droptail", 35, {}, iw3)]
    long_rtt = {"reply_bytes_above": 10_000, "rtt_ms": [150, 250]}
    short_rtt = {"reply_bytes_above": 10_000, "rtt_ms": [0, 20]}
    claim = {
        "claim": "IW10 helps most at long RTTs",
        "checks": [
            check(expect="lower", percent=20, requests=long_rtt),
            check(expect="same", percent=3, requests=short_rtt),
            check(expect="larger_gain", requests=long_rtt, versus=short_rtt),
            check(expect="larger_gain", requests=short_rtt, versus=long_rtt),
            check(expect="lower", requests={"rtt_ms": [300, 400]}),
        ],
    }
    frame = table([claim], points)
    assert verdicts(frame) == [PARTLY, REPRODUCED, REPRODUCED, REPRODUCED, NOT, NO_DATA]
    assert "RTT 150–250 ms" in frame.loc[1, "check"]
    gain = float(frame.loc[3, "measured"].removesuffix(" ms"))
    assert 250 < gain < 350


def test_claim_verdicts() -> None:
    assert claim_verdict([REPRODUCED, REPRODUCED, NO_DATA]) == REPRODUCED
    assert claim_verdict([NOT, NOT]) == NOT
    assert claim_verdict([REPRODUCED, NOT]) == PARTLY
    assert claim_verdict([PARTLY]) == PARTLY
    assert claim_verdict([NO_DATA]) == NO_DATA


def test_an_unknown_metric_or_field_is_named() -> None:
    points = medians([100], [100])
    bad = {"claim": "x", "checks": [check(expect="same"), check(expect="same", metric="speed")]}
    with pytest.raises(FindingsError, match=r"findings\[0\]\.checks\[1\]\.metric: unknown .*speed"):
        table([bad], points)
    subset = {"claim": "x", "checks": [check(expect="same", requests={}, metric="utilisation")]}
    with pytest.raises(FindingsError, match="for a requests subset"):
        table([subset], points)
    each = {"claim": "x", "checks": [check(expect="same", for_each=["traffic.nothing"])]}
    with pytest.raises(FindingsError, match=r"checks\[0\]\.for_each: no field traffic.nothing"):
        table([each], points)


def test_incomplete_checks_are_refused() -> None:
    for fields, message in (
        (check(expect="lower", b={}), "give b"),
        (check(expect="about"), "needs `about` and `within`"),
        (check(expect="larger_gain"), "`requests` and `versus`"),
        (check(expect="faster"), "expect"),
        (check(expect="same", requests={"rtt_ms": [50, 10]}), "lowest, highest"),
    ):
        with pytest.raises(ValidationError, match=message):
            Claim.model_validate({"claim": "x", "checks": [fields]})


def test_a_bad_check_in_an_experiment_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text(
        "name: x\nduration_s: 10\nfindings:\n  - claim: c\n    checks:\n"
        "      - metric: response_time_median_ms\n        a: {seed: 1}\n        expect: lower\n"
    )
    with pytest.raises(ExperimentError, match=r"x\.yaml:6: findings\.0\.checks\.0: .*give b"):
        load_experiment(path)


def test_every_study_states_checkable_claims() -> None:
    """Each study file's claims validate, name metrics the report computes, and select
    points its sweep makes: a check no point matches would only ever say no data."""
    for path in sorted(STUDIES.glob("*.yaml")):
        if path.stem == "demo-fifo-vs-red":
            continue
        experiment, points = load_experiment(path)
        assert experiment.findings, path
        datas = [
            PointData(
                Point(
                    "r",
                    Path(p.name),
                    {"point": {"name": p.name}, "experiment": p.experiment.model_dump(mode="json")},
                ),
                *(pd.DataFrame(), pd.DataFrame(), [], [], pd.DataFrame()),
            )
            for p in points
        ]
        evaluator = Evaluator(datas, pd.DataFrame([dict.fromkeys(METRICS, 1.0)] * len(datas)))
        for i, claim in enumerate(experiment.findings):
            for j, c in enumerate(claim.checks):
                check_metric(c, f"{path.name}: findings[{i}].checks[{j}]")
                for where in evaluator.groups(c):
                    for side in (c.a, c.b) if c.b else (c.a,):
                        matched = [d for d in datas if selects(d, where) and selects(d, side)]
                        assert matched, (path.name, claim.claim, where, side)
