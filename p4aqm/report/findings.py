"""The findings table: each claim of the study (p4aqm/experiments/claims.py) checked against the
points' results, with the measured numbers, their spread over repetitions, and a verdict.

A check holds when its expectation holds on the means of its two sides. Where both sides
have repetitions, a direction (lower, higher, differ) must also hold between every
repetition of a and every one of b, else the check is only "partly" reproduced: its
means agree with the claim but its spread does not separate the two. A claim is
reproduced when all its checks are, not reproduced when none holds, and partly otherwise.
Checks with no matching points are listed as "no data" and do not count.
"""

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from p4aqm.experiments.claims import Check, Claim, Requests
from p4aqm.report.grouping import value_text
from p4aqm.report.load import PointData
from p4aqm.report.metrics import METRICS

WEB_METRICS = {
    "response_time_median_ms": 50,
    "response_time_p90_ms": 90,
    "response_time_p99_ms": 99,
}
# The response-time percentiles compared for a crossover, and how far apart (relative)
# two distributions must be at a percentile for one to count as faster there.
CROSSOVER_PERCENTILES = tuple(range(5, 100, 5)) + (99,)
CROSSOVER_MARGIN = 0.02

REPRODUCED, PARTLY, NOT, NO_DATA = "reproduced", "partly", "not reproduced", "no data"
COLUMNS = {
    "claim": "claim (paper)",
    "check": "check",
    "a": "a: measured",
    "b": "b: measured",
    "measured": "a against b",
    "expected": "expected",
    "verdict": "verdict",
    "note": "what differs in our setup",
}


class FindingsError(ValueError):
    """A check the results cannot answer: an unknown metric or field; names the check."""


@dataclass(frozen=True)
class Side:
    values: list[float]  # one per point (repetition); NaN-free

    @property
    def mean(self) -> float:
        return float(np.mean(self.values))

    def text(self, unit: str) -> str:
        spread = ""
        if len(self.values) > 1:
            low, high = _number(min(self.values)), _number(max(self.values))
            spread = f" [{low}–{high}, n={len(self.values)}]"
        return f"{_number(self.mean)}{unit}{spread}"


def _number(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


def _unit(metric: str) -> str:
    if metric.endswith("_ms"):
        return " ms"
    if "percent" in metric:
        return " %"
    return ""


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


def metric_value(
    data: PointData, summary_row: pd.Series, metric: str, subset: Requests | None
) -> float:
    if subset is None:
        return float(summary_row[metric])
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
    expected: str
    verdict: str


class Evaluator:
    """Checks against one report's points and summary (one row per point, same order)."""

    def __init__(self, datas: list[PointData], summary: pd.DataFrame) -> None:
        self.datas = datas
        self.rows = {d.point.name: summary.iloc[i] for i, d in enumerate(datas)}

    def side(
        self, check: Check, where: dict[str, Any], selector: dict[str, Any], subset: Requests | None
    ) -> Side:
        values = [
            metric_value(d, self.rows[d.point.name], check.metric, subset)
            for d in self.datas
            if selects(d, where) and selects(d, selector)
        ]
        return Side([v for v in values if not math.isnan(v)])

    def pooled(
        self, where: dict[str, Any], selector: dict[str, Any], subset: Requests | None
    ) -> np.ndarray:
        """Response times (ms) of every matching point's completed requests, together."""
        frames = [
            requests_of(d, subset)["response_time_ms"]
            for d in self.datas
            if selects(d, where) and selects(d, selector)
        ]
        return pd.concat(frames).to_numpy() if frames else np.array([])

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
        parts.append(_subset_text(check.requests))
    parts += [f"{k.rsplit('.', 1)[-1]}={value_text(v)}" for k, v in where.items()]
    return ", ".join(parts)


def _subset_text(subset: Requests) -> str:
    parts = []
    if subset.reply_bytes_above:
        parts.append(f"replies > {subset.reply_bytes_above / 1e3:g} KB")
    if subset.reply_bytes_up_to is not None:
        parts.append(f"replies ≤ {subset.reply_bytes_up_to / 1e3:g} KB")
    if subset.rtt_ms is not None:
        parts.append(f"RTT {subset.rtt_ms[0]:g}–{subset.rtt_ms[1]:g} ms")
    return " ".join(parts) or "all replies"


def _separated(a: Side, b: Side, below: bool) -> bool:
    """Every repetition of a is below (or above) every one of b; true with one point a side,
    which has no spread to judge."""
    if len(a.values) < 2 or len(b.values) < 2:
        return True
    return max(a.values) < min(b.values) if below else min(a.values) > max(b.values)


def _direction(check: Check, a: Side, b: Side) -> tuple[str, str, str]:
    """(measured, expected, verdict) of lower, higher, differ, same and at_most."""
    change = 100 * (a.mean / b.mean - 1) if b.mean else math.inf
    measured = f"{change:+.1f} %"
    p = check.percent
    if check.expect == "same":
        return measured, f"within ±{p:g} %", REPRODUCED if abs(change) <= p else NOT
    if check.expect == "at_most":
        return measured, f"≤ +{p:g} %", REPRODUCED if change <= p else NOT
    below = change <= -p
    above = change >= p
    if check.expect == "lower":
        holds, separated, expected = below, _separated(a, b, True), f"≤ −{p:g} %"
    elif check.expect == "higher":
        holds, separated, expected = above, _separated(a, b, False), f"≥ +{p:g} %"
    else:
        holds = below or above
        separated = _separated(a, b, below)
        expected = f"≥ {p:g} % either way"
    if not holds:
        return measured, expected, NOT
    return measured, expected, REPRODUCED if separated else PARTLY


def _crossover(a: np.ndarray, b: np.ndarray) -> tuple[str, bool]:
    qa = np.percentile(a, CROSSOVER_PERCENTILES)
    qb = np.percentile(b, CROSSOVER_PERCENTILES)
    relative = qa / qb - 1
    faster = [
        f"p{q}"
        for q, r in zip(CROSSOVER_PERCENTILES, relative, strict=True)
        if r < -CROSSOVER_MARGIN
    ]
    slower = [
        f"p{q}"
        for q, r in zip(CROSSOVER_PERCENTILES, relative, strict=True)
        if r > CROSSOVER_MARGIN
    ]
    shown = ", ".join(
        f"p{q} {100 * r:+.0f} %"
        for q, r in zip(CROSSOVER_PERCENTILES, relative, strict=True)
        if q in (10, 50, 90, 99)
    )
    where = f"a faster at {len(faster)}, slower at {len(slower)} of {len(relative)} percentiles"
    return f"{shown}; {where}", bool(faster and slower)


def evaluate_check(evaluator: Evaluator, check: Check, where: dict[str, Any]) -> Row:
    label = _label(check, where)
    if check.expect == "crossover":
        a = evaluator.pooled(where, check.a, check.requests)
        b = evaluator.pooled(where, check.b, check.requests)
        if not len(a) or not len(b):
            return Row("", label, "", "", "", "the distributions cross", NO_DATA)
        measured, crosses = _crossover(a, b)
        return Row(
            "",
            label,
            f"median {_number(float(np.median(a)))} ms",
            f"median {_number(float(np.median(b)))} ms",
            measured,
            "each faster on part of the distribution",
            REPRODUCED if crosses else NOT,
        )
    if check.expect == "larger_gain":
        return _larger_gain(evaluator, check, where, label)
    a = evaluator.side(check, where, check.a, check.requests)
    b = evaluator.side(check, where, check.b, check.requests) if check.b else None
    unit = _unit(check.metric)
    if not a.values or (check.b and (b is None or not b.values)):
        return Row("", label, "", "", "", "", NO_DATA)
    if check.expect == "about":
        assert check.about is not None and check.within is not None
        value = a.mean - b.mean if b is not None else a.mean
        measured = f"{value:+.3g}{unit}" if b is not None else f"{value:.3g}{unit}"
        expected = f"{'a − b ' if b is not None else ''}{check.about:g} ± {check.within:g}{unit}"
        verdict = REPRODUCED if abs(value - check.about) <= check.within else NOT
        return Row("", label, a.text(unit), b.text(unit) if b else "", measured, expected, verdict)
    assert b is not None
    measured, expected, verdict = _direction(check, a, b)
    return Row("", label, a.text(unit), b.text(unit), measured, expected, verdict)


def _larger_gain(evaluator: Evaluator, check: Check, where: dict[str, Any], label: str) -> Row:
    gains = []
    for subset in (check.requests, check.versus):
        a = evaluator.side(check, where, check.a, subset)
        b = evaluator.side(check, where, check.b, subset)
        if not a.values or not b.values:
            return Row("", label, "", "", "", "", NO_DATA)
        gains.append((b.mean - a.mean, subset))
    (gain, subset), (gain_versus, versus) = gains
    unit = _unit(check.metric)
    assert subset is not None and versus is not None
    return Row(
        "",
        label,
        f"b − a {gain:+.0f}{unit} ({_subset_text(subset)})",
        f"b − a {gain_versus:+.0f}{unit} ({_subset_text(versus)})",
        f"{gain - gain_versus:+.0f}{unit}",
        "a's gain larger in the first subset",
        REPRODUCED if gain > 0 and gain > gain_versus else NOT,
    )


def claim_verdict(verdicts: list[str]) -> str:
    judged = [v for v in verdicts if v != NO_DATA]
    if not judged:
        return NO_DATA
    if all(v == REPRODUCED for v in judged):
        return REPRODUCED
    if all(v == NOT for v in judged):
        return NOT
    return PARTLY


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
        lines.append(f"  - {row['verdict']}: {row['check']}: {detail}".rstrip(": "))
        if row["expected"]:
            lines[-1] += f" (expected {row['expected']})"
    return "\n".join(lines)
