"""The findings table: each claim of the study (p4aqm/experiments/claims.py) checked against the
points' results, with each side's numbers over its runs, the difference a - b with its
confidence interval (p4aqm/report/intervals.py: paired run by run where the runs share
seeds, else Welch), and a verdict by p4aqm/report/verdicts.py's rules: reproduced, not
reproduced, inconclusive, or no data.

`compare` gives one comparison (a - b in percent of b, its interval, n and verdict) from a
results folder, for scripts such as the demo's verdict line.
"""

import math
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from p4aqm.experiments.claims import Check, Claim, Expect, Requests
from p4aqm.report import verdicts
from p4aqm.report.grouping import value_text
from p4aqm.report.intervals import (
    EQUIVALENCE_LEVEL,
    LEVEL,
    Interval,
    Run,
    difference,
    level_text,
    mean_interval,
    paired_differences,
    pairs,
)
from p4aqm.report.load import PointData, load_point, load_results
from p4aqm.report.metrics import METRICS, summary_row
from p4aqm.report.verdicts import NO_DATA, claim_verdict

WEB_METRICS = {
    "response_time_median_ms": 50,
    "response_time_p90_ms": 90,
    "response_time_p99_ms": 99,
}
# The response-time percentiles compared for a crossover, each run's own.
CROSSOVER_PERCENTILES = tuple(range(5, 100, 5)) + (99,)
SHOWN_PERCENTILES = (10, 50, 90, 99)

COLUMNS = {
    "claim": "claim (paper)",
    "check": "check",
    "a": "a: measured [min–max, n]",
    "b": "b: measured [min–max, n]",
    "measured": "a against b [interval]",
    "runs": "runs",
    "expected": "expected",
    "reason": "threshold from",
    "verdict": "verdict",
    "note": "what differs in our setup",
}


class FindingsError(ValueError):
    """A check the results cannot answer: an unknown metric or field; names the check."""


def _number(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


@dataclass(frozen=True)
class Side:
    runs: list[Run]  # one per point (run); NaN-free

    @property
    def values(self) -> list[float]:
        return [r.value for r in self.runs]

    def text(self, unit: str) -> str:
        mean = _number(float(np.mean(self.values)))
        spread = ""
        if len(self.values) > 1:
            low, high = _number(min(self.values)), _number(max(self.values))
            spread = f" [{low}–{high}, n={len(self.values)}]"
        return f"{mean}{unit}{spread}"


def _unit(metric: str) -> str:
    if metric.endswith("_ms"):
        return " ms"
    if "percent" in metric:
        return " %"
    return ""


def difference_unit(check: Check) -> str:
    """a - b's unit: percent of b, or the metric's own (a difference of percents is in
    percentage points)."""
    if check.relative:
        return " %"
    unit = _unit(check.metric)
    return " points" if unit == " %" else unit


def field_value(experiment: dict[str, Any], dotted: str) -> Any:  # noqa: ANN401 - any YAML
    """A resolved experiment's field by its dotted path (list items by index)."""
    node: Any = experiment
    for part in dotted.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise KeyError(dotted)
    return node


def _matches(value: Any, wanted: Any) -> bool:  # noqa: ANN401 - any YAML value
    if isinstance(wanted, dict):
        return isinstance(value, dict) and all(
            k in value and _matches(value[k], v) for k, v in wanted.items()
        )
    if isinstance(wanted, int | float) and isinstance(value, int | float):
        return math.isclose(value, wanted)
    return value == wanted


def selects(data: PointData, selector: dict[str, Any]) -> bool:
    experiment = data.point.manifest.get("experiment", {})
    for dotted, wanted in selector.items():
        try:
            value = field_value(experiment, dotted)
        except KeyError:
            return False
        if not _matches(value, wanted):
            return False
    return True


def pair_key(data: PointData) -> Hashable:
    """What pairs a run with another configuration's: the seed its draws came from (an
    experiment's repetition k runs with seed + k - 1 in every configuration), or its
    repetition number where the manifest has no seed."""
    seed = data.point.manifest.get("experiment", {}).get("seed")
    return f"seed {seed}" if seed is not None else f"repetition {data.point.repetition}"


def requests_of(data: PointData, subset: Requests | None) -> pd.DataFrame:
    """The completed web requests of a point inside subset."""
    web = data.web
    keep = web["outcome"] == "ok"
    if subset is not None:
        keep &= web["reply_bytes"] > subset.reply_bytes_above
        if subset.reply_bytes_up_to is not None:
            keep &= web["reply_bytes"] <= subset.reply_bytes_up_to
        if subset.rtt_ms is not None:
            rtt = web["base_rtt_ms"]
            keep &= (rtt >= subset.rtt_ms[0] - 1e-6) & (rtt <= subset.rtt_ms[1] + 1e-6)
    return web[keep]


def subset_value(data: PointData, metric: str, subset: Requests) -> float:
    """A web metric over a requests subset of a point: a response-time percentile, or the
    count of requests_ok."""
    requests = requests_of(data, subset)
    if metric == "requests_ok":
        return float(len(requests))
    if not len(requests):
        return math.nan
    return float(np.percentile(requests["response_time_ms"], WEB_METRICS[metric]))


@dataclass(frozen=True)
class Row:
    claim: str
    check: str
    a: str
    b: str
    measured: str
    runs: str
    expected: str
    reason: str
    verdict: str


class Evaluator:
    """Checks against one report's points and summary (one row per point, same order;
    without a summary, each point's row is computed when a check needs it)."""

    def __init__(self, datas: list[PointData], summary: pd.DataFrame | None = None) -> None:
        self.datas = datas
        self.rows: dict[str, pd.Series] = (
            {d.point.name: summary.iloc[i] for i, d in enumerate(datas)}
            if summary is not None
            else {}
        )

    def value(self, data: PointData, metric: str, subset: Requests | None) -> float:
        """The metric of a point: from its summary row (computed here, once, without the
        report's summary), or over a requests subset from its own requests."""
        if subset is not None:
            return subset_value(data, metric, subset)
        name = data.point.name
        if name not in self.rows:
            self.rows[name] = pd.Series(summary_row(data))
        return float(self.rows[name][metric])

    def selected(self, where: dict[str, Any], selector: dict[str, Any]) -> list[PointData]:
        return [d for d in self.datas if selects(d, where) and selects(d, selector)]

    def side(
        self, metric: str, where: dict[str, Any], selector: dict[str, Any], subset: Requests | None
    ) -> Side:
        """The metric of each selected run, keyed for pairing."""
        runs = [
            Run(pair_key(d), self.value(d, metric, subset)) for d in self.selected(where, selector)
        ]
        return Side([r for r in runs if not math.isnan(r.value)])

    def percentiles(
        self, where: dict[str, Any], selector: dict[str, Any], subset: Requests | None
    ) -> list[tuple[Hashable, np.ndarray]]:
        """Each selected run's response-time percentiles (CROSSOVER_PERCENTILES), in ms."""
        found = []
        for data in self.selected(where, selector):
            times = requests_of(data, subset)["response_time_ms"]
            if len(times):
                found.append((pair_key(data), np.percentile(times, CROSSOVER_PERCENTILES)))
        return found

    def groups(self, check: Check) -> list[dict[str, Any]]:
        """The `where` of each instance of the check: one per for_each value combination."""
        if not check.for_each:
            return [dict(check.where)]
        combos: dict[str, dict[str, Any]] = {}
        for data in self.datas:
            if not selects(data, check.where):
                continue
            experiment = data.point.manifest.get("experiment", {})
            try:
                combo = {k: field_value(experiment, k) for k in check.for_each}
            except KeyError as exc:
                raise FindingsError(f"for_each: no field {exc.args[0]} in the points") from None
            combos.setdefault(value_text(list(combo.values())), combo)
        return [{**check.where, **combo} for combo in combos.values()]


def _selection_text(selector: dict[str, Any]) -> str:
    return " ".join(value_text(v) for v in selector.values())


def _label(check: Check, where: dict[str, Any]) -> str:
    if check.label:
        parts = [check.label]
    else:
        compared = _selection_text(check.a)
        if check.b:
            compared += f" against {_selection_text(check.b)}"
        metric = "response times" if check.expect == "crossover" else check.metric
        parts = [f"{compared}: {METRICS.get(metric, metric)}"]
    if check.requests is not None:
        parts.append(subset_text(check.requests))
    parts += [f"{k.rsplit('.', 1)[-1]}={value_text(v)}" for k, v in where.items()]
    return ", ".join(parts)


def subset_text(subset: Requests) -> str:
    parts = []
    if subset.reply_bytes_above:
        parts.append(f"replies > {subset.reply_bytes_above / 1e3:g} KB")
    if subset.reply_bytes_up_to is not None:
        parts.append(f"replies ≤ {subset.reply_bytes_up_to / 1e3:g} KB")
    if subset.rtt_ms is not None:
        parts.append(f"RTT {subset.rtt_ms[0]:g}–{subset.rtt_ms[1]:g} ms")
    return " ".join(parts) or "all replies"


def _no_data(check: Check, label: str) -> Row:
    return Row("", label, "", "", "", "", "", check.reason, NO_DATA)


def _expected(check: Check, unit: str) -> str:
    """What the verdict asks of the interval, in words."""
    t = f"{check.threshold:g}{unit}"
    sure, bounded = level_text(LEVEL), level_text(EQUIVALENCE_LEVEL)
    size = {"lower": f", estimate ≤ −{t}", "higher": f", estimate ≥ +{t}"}
    if check.expect in size:
        side = "<" if check.expect == "lower" else ">"
        return f"a − b {side} 0 at {sure}" + (size[check.expect] if check.threshold else "")
    if check.expect == "differ":
        return f"a − b ≠ 0 at {sure}, estimate beyond ±{t}"
    if check.expect == "same":
        return f"{bounded} interval within ±{t}"
    return f"{bounded} interval ≤ +{t}"  # at_most


def _judge(check: Check, interval: Interval) -> str:
    if check.expect in ("lower", "higher"):
        return verdicts.direction(interval, 1 if check.expect == "higher" else -1, check.threshold)
    if check.expect == "differ":
        return verdicts.differ(interval, check.threshold)
    if check.expect == "same":
        return verdicts.inside(interval, -check.threshold, check.threshold)
    return verdicts.inside(interval, -math.inf, check.threshold)  # at_most


def _consistently(a: Side, b: Side, check: Check) -> str:
    """For an equivalence or a bound: the direction a 95 % interval still shows, which a
    margin would otherwise hide."""
    wide = difference(a.runs, b.runs, check.relative, LEVEL)
    if not wide.known or wide.low <= 0 <= wide.high:
        return ""
    direction = "lower" if wide.high < 0 else "higher"
    return f"; a consistently {direction} ({wide.text(difference_unit(check))})"


def _absolute_where_b_is_zero(check: Check, b: Side) -> Check:
    """A direction with no size claimed (threshold 0), in percent of b by default, is
    taken in the metric's own unit when a run of b is 0: a percent of 0 has no value, and
    the sign, all such a claim asks, is the same either way (Dunigan et al.'s untuned
    stream retransmitted nothing)."""
    direction = check.expect in ("lower", "higher")
    if direction and check.relative and check.percent is None and 0 in b.values:
        return check.model_copy(update={"by": 0.0})
    return check


def _comparison(evaluator: Evaluator, check: Check, where: dict[str, Any]) -> tuple[Row, Interval]:
    """lower, higher, differ, same and at_most: a - b over the runs, and its verdict."""
    label = _label(check, where)
    a = evaluator.side(check.metric, where, check.a, check.requests)
    b = evaluator.side(check.metric, where, check.b, check.requests)
    bounded = check.expect in ("same", "at_most")
    level = EQUIVALENCE_LEVEL if bounded else LEVEL
    if not a.runs or not b.runs:
        return _no_data(check, label), Interval(math.nan, math.nan, math.nan, level, (0,), False)
    check = _absolute_where_b_is_zero(check, b)
    unit = difference_unit(check)
    interval = difference(a.runs, b.runs, check.relative, level)
    measured = interval.text(unit) + (_consistently(a, b, check) if bounded else "")
    side_unit = _unit(check.metric)
    row = Row(
        "",
        label,
        a.text(side_unit),
        b.text(side_unit),
        measured,
        interval.runs_text,
        _expected(check, unit),
        check.reason,
        _judge(check, interval),
    )
    return row, interval


def _about(evaluator: Evaluator, check: Check, where: dict[str, Any]) -> Row:
    """a's mean (or a - b, with b) within `within` of `about`, by its 90 % interval."""
    assert check.about is not None and check.within is not None
    label = _label(check, where)
    a = evaluator.side(check.metric, where, check.a, check.requests)
    b = evaluator.side(check.metric, where, check.b, check.requests) if check.b else None
    if not a.runs or (b is not None and not b.runs):
        return _no_data(check, label)
    unit = _unit(check.metric)
    if b is None:
        interval = mean_interval(a.values, EQUIVALENCE_LEVEL)
        what, shown_unit = "a", unit
    else:
        interval = difference(a.runs, b.runs, False, EQUIVALENCE_LEVEL)
        what, shown_unit = "a − b", difference_unit(check)
    low, high = check.about - check.within, check.about + check.within
    return Row(
        "",
        label,
        a.text(unit),
        b.text(unit) if b is not None else "",
        interval.text(shown_unit, signed=b is not None),
        interval.runs_text,
        f"{level_text(EQUIVALENCE_LEVEL)} interval of {what} within"
        f" {low:g} to {high:g}{shown_unit}".replace("-", "−"),
        check.reason,
        verdicts.inside(interval, low, high),
    )


def _percentile_intervals(
    a: list[tuple[Hashable, np.ndarray]], b: list[tuple[Hashable, np.ndarray]]
) -> list[Interval]:
    """Per crossover percentile: a - b in percent of b, run by run where the runs pair."""
    return [
        difference(
            [Run(key, float(q[j])) for key, q in a],
            [Run(key, float(q[j])) for key, q in b],
            relative=True,
        )
        for j in range(len(CROSSOVER_PERCENTILES))
    ]


def _crossover(evaluator: Evaluator, check: Check, where: dict[str, Any]) -> Row:
    label = _label(check, where)
    a = evaluator.percentiles(where, check.a, check.requests)
    b = evaluator.percentiles(where, check.b, check.requests)
    if not a or not b:
        return _no_data(check, label)
    intervals = _percentile_intervals(a, b)
    verdict, faster, slower = verdicts.crossover(intervals)
    median = CROSSOVER_PERCENTILES.index(50)
    shown = "; ".join(
        f"p{q} {i.text(' %')}"
        for q, i in zip(CROSSOVER_PERCENTILES, intervals, strict=True)
        if q in SHOWN_PERCENTILES
    )
    count = len(CROSSOVER_PERCENTILES)
    each = verdicts.CROSSOVER_PERCENTILES_EACH_WAY
    return Row(
        "",
        label,
        "median " + Side([Run(k, float(q[median])) for k, q in a]).text(" ms"),
        "median " + Side([Run(k, float(q[median])) for k, q in b]).text(" ms"),
        f"{shown}; a faster at {faster}, slower at {slower} of {count} percentiles",
        intervals[0].runs_text,
        f"a faster at ≥ {each} and slower at ≥ {each} percentiles ({level_text(LEVEL)} intervals)",
        check.reason,
        verdict,
    )


def gains(
    evaluator: Evaluator, check: Check, where: dict[str, Any], subset: Requests | None
) -> Side:
    """a's gain over b in each pair of runs: b - a, or 100 (b - a) / b; none unpaired."""
    a = evaluator.side(check.metric, where, check.a, subset)
    b = evaluator.side(check.metric, where, check.b, subset)
    matched = pairs(a.runs, b.runs)
    if matched is None:
        return Side([])
    gains = [Run(r.key, -r.value) for r in paired_differences(matched, check.relative)]
    return Side([r for r in gains if math.isfinite(r.value)])


def _condition_text(subset: Requests | None, where: dict[str, Any]) -> str:
    parts = [subset_text(subset)] if subset is not None else []
    parts += [f"{k.rsplit('.', 1)[-1]}={value_text(v)}" for k, v in where.items()]
    return ", ".join(parts) or "all"


def _larger_gain(evaluator: Evaluator, check: Check, where: dict[str, Any]) -> Row:
    """a's gain over b, run by run, larger under the check's condition than under versus."""
    label = _label(check, where)
    versus_where = {**where, **check.versus_where}
    versus = check.versus if check.versus is not None else check.requests
    selections = ((where, check.requests), (versus_where, versus))
    if not all(
        evaluator.side(check.metric, w, side, subset).runs
        for w, subset in selections
        for side in (check.a, check.b)
    ):
        return _no_data(check, label)
    gain = gains(evaluator, check, where, check.requests)
    gain_versus = gains(evaluator, check, versus_where, versus)
    unit = difference_unit(check)
    interval = difference(gain.runs, gain_versus.runs, relative=False)
    unpaired = "n/a (the runs do not pair)"
    return Row(
        "",
        label,
        f"gain {gain.text(unit) if gain.runs else unpaired}"
        f" ({_condition_text(check.requests, {})})",
        f"gain {gain_versus.text(unit) if gain_versus.runs else unpaired}"
        f" ({_condition_text(versus, check.versus_where)})",
        interval.text(unit),
        interval.runs_text,
        f"gain − gain versus > 0 at {level_text(LEVEL)}"
        + (f", estimate ≥ +{check.threshold:g}{unit}" if check.threshold else ""),
        check.reason,
        verdicts.direction(interval, 1, check.threshold),
    )


def evaluate_check(evaluator: Evaluator, check: Check, where: dict[str, Any]) -> Row:
    if check.expect == "crossover":
        return _crossover(evaluator, check, where)
    if check.expect == "larger_gain":
        return _larger_gain(evaluator, check, where)
    if check.expect == "about":
        return _about(evaluator, check, where)
    return _comparison(evaluator, check, where)[0]


def check_metric(check: Check, where: str) -> None:
    """Refuse a metric the report does not compute; where names the check."""
    known = WEB_METRICS.keys() | {"requests_ok"} if check.requests is not None else METRICS.keys()
    if check.expect == "crossover":
        return
    if check.metric not in known:
        raise FindingsError(
            f"{where}.metric: unknown metric {check.metric!r}"
            f"{' for a requests subset' if check.requests is not None else ''};"
            f" the metrics are {', '.join(sorted(known))}"
        )


def findings_table(
    claims: list[Claim], datas: list[PointData], summary: pd.DataFrame
) -> pd.DataFrame:
    """One row per claim (its verdict and note), then one per check instance under it."""
    evaluator = Evaluator(datas, summary)
    rows: list[dict[str, str]] = []
    for i, claim in enumerate(claims):
        checks: list[Row] = []
        for j, check in enumerate(claim.checks):
            where = f"findings[{i}].checks[{j}]"
            check_metric(check, where)
            try:
                groups = evaluator.groups(check)
            except FindingsError as exc:
                raise FindingsError(f"{where}.{exc}") from None
            checks += [evaluate_check(evaluator, check, group) for group in groups]
        verdict = claim_verdict([r.verdict for r in checks])
        rows.append(
            {
                **dict.fromkeys(COLUMNS, ""),
                "claim": claim.claim,
                "verdict": verdict,
                "note": claim.note,
            }
        )
        rows += [{**asdict(r), "note": ""} for r in checks]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def as_text(table: pd.DataFrame) -> str:
    """The findings for a terminal: each claim with its verdict, its checks indented."""
    lines = []
    for _, row in table.iterrows():
        if row["claim"]:
            lines.append(f"{row['verdict'].upper()}: {row['claim']}")
            if row["note"]:
                lines.append(f"    ({row['note']})")
            continue
        detail = f"a {row['a']} | b {row['b']} | {row['measured']}" if row["a"] else ""
        if row["runs"]:
            detail += f" ({row['runs']})"
        lines.append(f"  - {row['verdict']}: {row['check']}: {detail}".rstrip(": "))
        if row["expected"]:
            lines[-1] += f" (expected {row['expected']})"
    return "\n".join(lines)


def findings_markdown(table: pd.DataFrame) -> str:
    """The findings as the README shows them: a bold row per claim with its verdict, a row
    per check with both sides, a − b with its interval, what was expected, and the verdict."""
    lines = [
        "| claim (paper) / check | a | b | a − b | expected | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for _, row in table.iterrows():
        if row["claim"]:
            cells = [f"**{row['claim']}**", "", "", "", "", f"**{row['verdict']}**"]
        else:
            cells = [row[c] for c in ("check", "a", "b", "measured", "expected", "verdict")]
        lines.append("| " + " | ".join(str(c).replace("|", "/") for c in cells) + " |")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Comparison:
    """One comparison of a with b: the interval of a - b its verdict was decided on (in
    percent of b, unless `by` was given; 95 %, or 90 % for same and at_most), whose
    `sizes` and `paired` say how many runs and whether run by run, and the verdict."""

    difference: Interval
    verdict: str
    row: Row  # the findings table's row for it


def _datas(results: Path | Sequence[PointData]) -> list[PointData]:
    if isinstance(results, Path):
        return [load_point(p) for p in load_results(results, results.name) if p.status == "ok"]
    return list(results)


def compare(
    results: Path | Sequence[PointData],
    a: dict[str, Any],
    b: dict[str, Any],
    metric: str,
    *,
    requests: Requests | None = None,
    where: dict[str, Any] | None = None,
    expect: Expect = "lower",
    percent: float | None = None,
    reason: str = "",
) -> Comparison:
    """a against b on metric (a summary column, or a response-time percentile over a
    requests subset such as Requests(reply_bytes_up_to=10_000)) in a results folder (or
    its loaded points), judged as a check `expect`s: lower, higher, differ, same or
    at_most, with percent its threshold or margin (reason: where it comes from).

        compare(Path("results/demo"), {"topology.right_to_left_aqm.discipline": "red"},
                {"topology.right_to_left_aqm.discipline": "droptail"},
                "response_time_median_ms", requests=Requests(reply_bytes_up_to=10_000))
    """
    check = Check(
        metric=metric,
        a=a,
        b=b,
        where=where or {},
        requests=requests,
        expect=expect,
        percent=percent,
        reason=reason,
    )
    if expect in ("about", "crossover", "larger_gain"):
        raise FindingsError(f"compare: expect {expect} is not a comparison of a with b")
    check_metric(check, "compare")
    datas = _datas(results)
    row, interval = _comparison(Evaluator(datas), check, check.where)
    return Comparison(interval, row.verdict, row)
