"""The findings table: each verdict rule both ways on synthetic repetitions whose
differences and noise are known, the verdicts of claims, bad checks named, the demo's
comparison, and the study files' claims all checkable."""

import math
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pydantic import ValidationError

from p4aqm.experiments.claims import Claim, Requests
from p4aqm.experiments.spec import ExperimentError, load_experiment
from p4aqm.report.findings import (
    Evaluator,
    FindingsError,
    check_metric,
    compare,
    findings_table,
    selects,
)
from p4aqm.report.html import _findings
from p4aqm.report.intervals import LEVEL, Interval
from p4aqm.report.load import Point, PointData
from p4aqm.report.metrics import METRICS
from p4aqm.report.verdicts import (
    INCONCLUSIVE,
    NO_DATA,
    NOT,
    REPRODUCED,
    claim_verdict,
    crossover,
)

STUDIES = Path(__file__).resolve().parents[2] / "experiments" / "studies"
# Hosts' one-way access delays (us): c1-s1 is a 10 ms pair, c2-s1 a 200 ms pair.
HOSTS = {"c1": 5_000, "c2": 100_000, "s1": 0}
REASON = {"reason": "a number for the test"}

Points = list[tuple[PointData, dict[str, float]]]


def point_data(
    name: str,
    aqm: str,
    load: int,
    metrics: dict[str, float],
    web: pd.DataFrame | None = None,
    repetition: int = 1,
) -> tuple[PointData, dict[str, float]]:
    """Repetition `repetition` of a point running `aqm` at `load` % whose summary row holds
    metrics (NaN elsewhere); its seed is the repetition's, as an experiment's would be."""
    experiment = {
        "name": "synthetic",
        "seed": repetition,
        "topology": {"right_to_left_aqm": {"discipline": aqm, "limit_pkts": 100}},
        "traffic": {"web": {"load_percent": load}},
    }
    manifest = {
        "status": "ok",
        "point": {"name": name, "repetition": repetition},
        "sweep": {},
        "experiment": experiment,
        "window": {"start_ns": 0, "end_ns": 10**10},
    }
    if web is None:
        web = pd.DataFrame(columns=["outcome", "response_time_ms", "reply_bytes"])
    data = PointData(Point("r", Path(name), manifest), web, pd.DataFrame(), [], [], pd.DataFrame())
    return data, {**dict.fromkeys(METRICS, math.nan), **metrics}


def table(claims: list[dict], points: Points) -> pd.DataFrame:
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


def medians(red: list[float], fifo: list[float], load: int = 98, first_rep: int = 1) -> Points:
    """Median response times per repetition (RED's k-th and FIFO's k-th share a seed)."""
    points = [
        point_data(f"red{load}_{i}", "red", load, {"response_time_median_ms": v}, None, i)
        for i, v in enumerate(red, first_rep)
    ]
    points += [
        point_data(f"fifo{load}_{i}", "droptail", load, {"response_time_median_ms": v}, None, i)
        for i, v in enumerate(fifo, first_rep)
    ]
    return points


def repetitions(change: float, noise: float, n: int = 5, seed: int = 1) -> Points:
    """n repetitions of RED and FIFO: a shared draw per repetition (common random numbers,
    6 %), then each side's own noise (relative sd `noise`); RED = FIFO * (1 + change)."""
    rng = np.random.default_rng(seed)
    shared = 300 * (1 + rng.normal(0, 0.06, n))
    fifo = shared * (1 + rng.normal(0, noise, n))
    red = shared * (1 + change) * (1 + rng.normal(0, noise, n))
    return medians(list(red), list(fifo))


def one(fields: dict, points: Points) -> pd.Series:
    """The row of a single-check claim."""
    frame = table([{"claim": "c", "checks": [fields]}], points)
    return frame.loc[1]


def test_a_direction_is_reproduced_refuted_or_inconclusive() -> None:
    lower = check(expect="lower", percent=5, **REASON)
    assert one(lower, repetitions(-0.10, 0.01))["verdict"] == REPRODUCED
    assert one(lower, repetitions(+0.10, 0.01))["verdict"] == NOT
    assert one(lower, repetitions(-0.02, 0.05))["verdict"] == INCONCLUSIVE
    # Surely lower, but by less than the claimed 5 %: the claim's size is excluded.
    assert one(lower, repetitions(-0.02, 0.002))["verdict"] == NOT
    # Surely lower, estimate near the threshold but the interval reaching past it.
    assert one(lower, repetitions(-0.045, 0.02, seed=3))["verdict"] == INCONCLUSIVE
    higher = check(expect="higher", **REASON)
    assert one(higher, repetitions(+0.03, 0.005))["verdict"] == REPRODUCED
    assert one(higher, repetitions(-0.03, 0.005))["verdict"] == NOT


def test_one_run_a_side_is_always_inconclusive() -> None:
    for change in (-0.5, 0.0, 0.5):
        row = one(check(expect="lower", percent=5, **REASON), medians([100 * (1 + change)], [100]))
        assert row["verdict"] == INCONCLUSIVE
        assert "no interval" in row["measured"]
    same = check(expect="same", percent=10, **REASON)
    assert one(same, medians([100], [100]))["verdict"] == INCONCLUSIVE
    about = check(expect="about", about=100, within=5, b={}, **REASON)
    assert one(about, medians([100], []))["verdict"] == INCONCLUSIVE
    # Three runs of RED, one of FIFO: one pair, so no paired spread, and Welch needs two.
    assert one(check(expect="lower"), medians([50, 51, 52], [100]))["verdict"] == INCONCLUSIVE


def test_a_direction_of_no_size_against_zero_is_taken_in_the_metric_s_unit() -> None:
    """b of 0 (an untuned stream with no retransmits): a percent of it has no value, so a
    direction with no size is judged on a − b itself; with a size in percent it cannot be."""
    more = check(metric="bulk_retransmits", expect="higher", **REASON)
    points = [
        point_data(f"{aqm}{k}", aqm, 98, {"bulk_retransmits": v}, None, k)
        for aqm, values in (("red", [290, 310, 300]), ("droptail", [0, 0, 0]))
        for k, v in enumerate(values, 1)
    ]
    row = one(more, points)
    assert row["verdict"] == REPRODUCED
    assert row["measured"] == "+300 [+275, +325] 95 %"
    sized = check(metric="bulk_retransmits", expect="higher", percent=10, **REASON)
    assert one(sized, points)["verdict"] == INCONCLUSIVE
    fewer = check(metric="bulk_retransmits", expect="lower", **REASON)
    row = one(fewer, points)
    assert row["verdict"] == NOT
    assert row["measured"] == "+300 [+275, +325] 95 %"


def test_the_table_shows_the_sides_the_paired_difference_and_its_interval() -> None:
    row = one(check(expect="lower", percent=5, **REASON), medians([310, 324, 287], [331, 352, 310]))
    assert row["verdict"] == REPRODUCED
    assert row["a"] == "307 ms [287–324, n=3]"
    assert row["runs"] == "paired, n=3"
    assert row["measured"] == "−7.24 % [−9.28, −5.2] 95 %"
    assert row["expected"] == "a − b < 0 at 95 %, estimate ≤ −5 %"
    assert row["reason"] == REASON["reason"]


def test_unpaired_runs_are_compared_by_welch_and_are_wider() -> None:
    """The same values with FIFO's runs from other seeds: no pairs, and the 6 % spread of
    each side hides the 7 % difference that pairing shows."""
    lower = check(expect="lower", **REASON)
    paired = one(lower, medians([310, 324, 287], [331, 352, 310]))
    points = medians([310, 324, 287], []) + medians([], [331, 352, 310], first_rep=4)
    unpaired = one(lower, points)
    assert (paired["verdict"], unpaired["verdict"]) == (REPRODUCED, INCONCLUSIVE)
    assert unpaired["runs"] == "unpaired, n=3+3"


def test_same_needs_the_interval_inside_the_margin() -> None:
    same = check(expect="same", percent=10, **REASON)
    assert one(same, repetitions(0.01, 0.01))["verdict"] == REPRODUCED
    assert one(same, repetitions(0.30, 0.01))["verdict"] == NOT
    assert one(same, repetitions(0.08, 0.05))["verdict"] == INCONCLUSIVE
    # Inside the margin, yet consistently lower: said beside the interval.
    row = one(same, medians([310, 324, 287], [331, 352, 310]))
    assert row["verdict"] == REPRODUCED
    assert "a consistently lower" in row["measured"] and "90 %" in row["measured"]


def test_at_most_is_a_bound_a_tie_must_show_with_its_interval() -> None:
    at_most = check(expect="at_most", percent=5, **REASON)
    assert one(at_most, repetitions(0.0, 0.005))["verdict"] == REPRODUCED
    # A tie on average, but runs 10 % apart either way: the bound is not shown.
    tie = medians([300, 330, 270, 310], [300, 300, 300, 300])
    assert one(at_most, tie)["verdict"] == INCONCLUSIVE
    assert one(at_most, repetitions(0.15, 0.005))["verdict"] == NOT


def test_differ_either_way_and_its_size() -> None:
    differ = check(expect="differ", percent=5, **REASON)
    assert one(differ, repetitions(0.10, 0.01))["verdict"] == REPRODUCED
    assert one(differ, repetitions(-0.10, 0.01))["verdict"] == REPRODUCED
    assert one(differ, repetitions(0.0, 0.005))["verdict"] == NOT
    assert one(differ, repetitions(0.03, 0.05))["verdict"] == INCONCLUSIVE


def test_about_a_value_or_a_difference_in_the_metric_s_unit() -> None:
    alone = check(expect="about", about=300, within=30, b={}, **REASON)
    assert one(alone, medians([295, 300, 305, 302], []))["verdict"] == REPRODUCED
    assert one(alone, medians([395, 400, 405, 402], []))["verdict"] == NOT
    assert one(alone, medians([250, 300, 350], []))["verdict"] == INCONCLUSIVE
    # a - b in ms, paired: about -20 ± 10 ms.
    minus = check(expect="about", about=-20, within=10, **REASON)
    row = one(minus, medians([280, 330, 300], [300, 349, 321]))
    assert row["verdict"] == REPRODUCED and "ms" in row["measured"]
    assert one(minus, medians([300, 350, 320], [300, 349, 321]))["verdict"] == NOT


def test_for_each_makes_one_check_per_value_and_where_filters() -> None:
    points = medians([100, 101, 99], [101, 102, 100], load=80)
    points += medians([150, 160, 140], [100, 105, 95], load=98)
    each = check(expect="same", percent=5, for_each=["traffic.web.load_percent"], **REASON)
    frame = table([{"claim": "RED ~ FIFO", "checks": [each]}], points)
    assert verdicts(frame) == [NOT, REPRODUCED, NOT]
    assert "load_percent=80" in frame.loc[1, "check"] and "load_percent=98" in frame.loc[2, "check"]
    assert "red against droptail" in frame.loc[1, "check"]
    only = check(expect="same", percent=5, where={"traffic.web.load_percent": 80}, **REASON)
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


def runs_of(aqm: str, median_ms: float, sigma: float, n: int = 3) -> Points:
    """n repetitions of a point whose response times are lognormal (median, sigma)."""
    rng = np.random.default_rng(zlib.crc32(f"{aqm} {median_ms} {sigma}".encode()))
    return [
        point_data(f"{aqm}{rep}", aqm, 98, {}, web(rng, "c1", median_ms, sigma), rep)
        for rep in range(1, n + 1)
    ]


def test_crossover_needs_two_percentiles_each_way_beyond_their_intervals() -> None:
    narrow = runs_of("red", 200, 0.3)
    crossover_claim = check(expect="crossover")
    # Same median region, different spread: FIFO faster below, slower in the tail.
    row = one(crossover_claim, narrow + runs_of("droptail", 150, 1.2))
    assert row["verdict"] == REPRODUCED and row["runs"] == "paired, n=3"
    # RED faster everywhere: no crossover.
    assert one(crossover_claim, narrow + runs_of("droptail", 400, 0.3))["verdict"] == NOT
    # One run a side: never a crossover, whatever its percentiles.
    one_each = runs_of("red", 200, 0.3, 1) + runs_of("droptail", 150, 1.2, 1)
    assert one(crossover_claim, one_each)["verdict"] == INCONCLUSIVE


def interval(low: float, high: float) -> Interval:
    return Interval((low + high) / 2, low, high, LEVEL, (3,), True)


def test_crossover_counts_percentiles_whose_intervals_exclude_zero() -> None:
    faster, slower, unclear = interval(-9, -1), interval(1, 9), interval(-3, 3)
    assert crossover([faster] * 5 + [slower] * 2 + [unclear] * 13)[0] == REPRODUCED
    assert crossover([faster] * 5 + [slower] + [unclear] * 14)[0] == INCONCLUSIVE
    assert crossover([faster] * 20)[0] == NOT
    assert crossover([faster] * 19 + [unclear])[0] == INCONCLUSIVE


def iw_points(gain_long_ms: list[float], gain_short_ms: list[float]) -> Points:
    """IW10 ("red" here) and IW3 ("droptail") per repetition: web requests of a 10 ms pair
    (c1) and a 200 ms pair (c2), IW10 gaining the given ms at each."""
    rng = np.random.default_rng(2)
    points = []
    for rep, (long, short) in enumerate(zip(gain_long_ms, gain_short_ms, strict=True), 1):
        base = 1 + rng.normal(0, 0.05)  # the repetition's shared draw
        iw3 = pd.concat([web(rng, "c1", 100 * base, 0.05), web(rng, "c2", 1000 * base, 0.05)])
        iw10 = iw3.copy()
        iw10["response_time_ms"] -= np.where(iw10["client_host"] == "c2", long, short)
        points += [
            point_data(f"iw10_{rep}", "red", 35, {}, iw10, rep),
            point_data(f"iw3_{rep}", "droptail", 35, {}, iw3, rep),
        ]
    return points


def test_requests_subsets_and_larger_gain_use_the_pairs_base_rtt() -> None:
    long_rtt = {"reply_bytes_above": 10_000, "rtt_ms": [150, 250]}
    short_rtt = {"reply_bytes_above": 10_000, "rtt_ms": [0, 20]}
    checks = [
        check(expect="lower", percent=20, requests=long_rtt, **REASON),
        check(expect="larger_gain", by=0, requests=long_rtt, versus=short_rtt),
        check(expect="larger_gain", by=0, requests=short_rtt, versus=long_rtt),
        check(expect="lower", requests={"rtt_ms": [300, 400]}),
    ]
    frame = table(
        [{"claim": "IW10 helps most at long RTTs", "checks": checks}],
        iw_points([300, 310, 290], [5, 4, 6]),
    )
    assert verdicts(frame) == [NOT, REPRODUCED, REPRODUCED, NOT, NO_DATA]
    assert "RTT 150–250 ms" in frame.loc[1, "check"]
    assert frame.loc[2, "measured"].startswith("+29")  # gain 300 against 5 ms
    assert frame.loc[2, "runs"] == "paired, n=3"
    # The same gain at both RTTs: inconclusive, not reproduced only if clearly smaller.
    even = table([{"claim": "c", "checks": checks[1:2]}], iw_points([5, 6, 4], [5, 4, 6]))
    assert verdicts(even)[1] == INCONCLUSIVE


def test_larger_gain_across_loads_compares_two_selections_run_by_run() -> None:
    """RED (5, 15)'s penalty against (30, 90), larger at 98 % than at 80 % load: the gap
    grows with load ("droptail" stands for (5, 15) here)."""
    points = medians([300, 310, 290], [360, 375, 345], load=98)  # about +20 %
    points += medians([200, 205, 195], [206, 210, 200], load=80)  # about +3 %
    grows = check(
        expect="larger_gain",
        where={"traffic.web.load_percent": 98},
        versus_where={"traffic.web.load_percent": 80},
        percent=0,
    )
    row = one(grows, points)
    assert row["verdict"] == REPRODUCED
    assert "load_percent=80" in row["b"]
    shrinks = {**grows, "where": grows["versus_where"], "versus_where": grows["where"]}
    assert one(shrinks, points)["verdict"] == NOT


def test_claim_verdicts() -> None:
    assert claim_verdict([REPRODUCED, REPRODUCED, NO_DATA]) == REPRODUCED
    assert claim_verdict([REPRODUCED, NOT, INCONCLUSIVE]) == NOT
    assert claim_verdict([REPRODUCED, INCONCLUSIVE]) == INCONCLUSIVE
    assert claim_verdict([NO_DATA]) == NO_DATA


def test_an_unknown_metric_or_field_is_named() -> None:
    points = medians([100], [100])
    bad = {"claim": "x", "checks": [check(expect="lower"), check(expect="lower", metric="speed")]}
    with pytest.raises(FindingsError, match=r"findings\[0\]\.checks\[1\]\.metric: unknown .*speed"):
        table([bad], points)
    subset = {"claim": "x", "checks": [check(expect="lower", requests={}, metric="utilisation")]}
    with pytest.raises(FindingsError, match="for a requests subset"):
        table([subset], points)
    each = {"claim": "x", "checks": [check(expect="lower", for_each=["traffic.nothing"])]}
    with pytest.raises(FindingsError, match=r"checks\[0\]\.for_each: no field traffic.nothing"):
        table([each], points)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (check(expect="lower", b={}), "b: expect lower compares a with b"),
        (check(expect="about"), "about, within: expect about needs"),
        (check(expect="larger_gain"), "versus: expect larger_gain needs"),
        (check(expect="lower", versus={}), "versus: only expect larger_gain"),
        (check(expect="faster"), "expect"),
        (check(expect="same", requests={"rtt_ms": [50, 10]}), "lowest, highest"),
        (check(expect="same"), "percent, by: expect same needs a margin above 0"),
        (check(expect="same", percent=0), "percent, by: expect same needs a margin"),
        (check(expect="differ", by=0), "percent, by: expect differ needs a size"),
        (check(expect="at_most"), "percent, by: expect at_most needs its bound"),
        (check(expect="lower", percent=5, by=3, **REASON), "percent, by: .* not both"),
        (check(expect="crossover", percent=5), "expect crossover takes no threshold"),
        (check(expect="same", percent=10), "reason: say where the threshold comes from"),
        (check(expect="about", about=1, within=1, b={}), "reason: say where"),
    ],
)
def test_incomplete_checks_are_refused_naming_the_field(fields: dict, message: str) -> None:
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


def test_compare_gives_the_demo_its_paired_difference_and_verdict() -> None:
    """RED against FIFO on the median of replies up to 10 KB, as the demo's verdict line
    asks it: in percent of FIFO, run by run, with its 95 % interval."""
    red = {"topology.right_to_left_aqm.discipline": "red"}
    fifo = {"topology.right_to_left_aqm.discipline": "droptail"}
    rng = np.random.default_rng(5)
    points = []
    for rep in (1, 2, 3):  # each repetition's requests drawn once, RED's 10 % faster
        fifo_web = web(rng, "c1", 200, 0.5)
        factor = rng.normal(0.9, 0.005)
        red_web = fifo_web.assign(response_time_ms=fifo_web["response_time_ms"] * factor)
        points += [
            point_data(f"red{rep}", "red", 98, {}, red_web, rep),
            point_data(f"fifo{rep}", "droptail", 98, {}, fifo_web, rep),
        ]
    small = Requests(reply_bytes_up_to=10_000)
    result = compare([d for d, _ in points], red, fifo, "response_time_median_ms", requests=small)
    assert result.verdict == REPRODUCED
    assert result.difference.paired and result.difference.sizes == (3,)
    assert result.difference.level == LEVEL
    assert result.difference.low < -10 < result.difference.high < -5  # truly -10 %
    assert "replies ≤ 10 KB" in result.row.check
    same = compare(
        [d for d, _ in points],
        red,
        fifo,
        "response_time_median_ms",
        requests=small,
        expect="same",
        percent=5,
        reason="the caller's margin",
    )
    assert same.verdict == NOT
    with pytest.raises(FindingsError, match="not a comparison"):
        compare([], red, fifo, "response_time_median_ms", expect="crossover")


def test_the_html_table_colours_each_verdict() -> None:
    frame = table(
        [{"claim": "RED is faster", "checks": [check(expect="lower")]}],
        medians([310, 324, 287], [331, 352, 310]),
    )
    page = _findings(frame)
    assert page.count('class="text reproduced"') == 2
    assert "paired, n=3" in page and "interval" in page


def test_every_study_states_checkable_claims() -> None:
    """Each study file's claims validate, name metrics the report computes, and select
    points its sweep makes: a check no point matches would only ever say no data."""
    for path in sorted(STUDIES.glob("*.yaml")):
        experiment, points = load_experiment(path)
        if path.stem != "demo-fifo-vs-red":
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
                    wheres = [where, {**where, **c.versus_where}] if c.versus_where else [where]
                    for w in wheres:
                        for side in (c.a, c.b) if c.b else (c.a,):
                            matched = [d for d in datas if selects(d, w) and selects(d, side)]
                            assert matched, (path.name, claim.claim, w, side)
