"""The claims drawn as the papers drew their comparisons: for each claim whose checks
compare response times, one figure with a panel per check instance (each `where`, each
`for_each` value), the response-time CDFs of the check's two sides, a (the configuration
the claim is about) and b (its baseline), over the requests its metric counts. Each
side's runs are pooled, each run is drawn thin beneath, and the panel's title gives the
check and its verdict from the findings table."""

import json
import math
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from p4aqm.experiments.claims import Check, Claim, Requests
from p4aqm.report.figures import FigureFile, ecdf, legend, panels, save
from p4aqm.report.findings import (
    WEB_METRICS,
    Evaluator,
    difference_unit,
    evaluate_check,
    gains,
    requests_of,
    subset_text,
)
from p4aqm.report.grouping import slug, value_text
from p4aqm.report.intervals import mean_interval
from p4aqm.report.load import PointData
from p4aqm.report.metrics import METRICS, SIZE_CLASSES

TITLE_WIDTH_CHARS = 48
SIDES = (("a", "-"), ("b", "--"))  # (side, line style)
GAIN_PANELS = ("by base RTT (ms)", "by reply size")
# A panel: its title, each side's runs' response times (ms), each side's selection as text.
Panel = tuple[str, dict[str, list[np.ndarray]], dict[str, str]]


def size_class(above: int, up_to: float) -> Requests:
    """The replies of a size class (metrics.SIZE_CLASSES) as a requests subset."""
    return Requests(reply_bytes_above=above, reply_bytes_up_to=None if math.isinf(up_to) else up_to)


def requests_counted(check: Check) -> Requests | None:
    """The requests the check's metric is taken over: its own subset, a transfer size
    class, or all completed requests (None)."""
    if check.requests is not None:
        return check.requests
    for column, _, above, up_to in SIZE_CLASSES:
        if check.metric == f"transfer_median_ms_{column}":
            return size_class(above, up_to)
    return None


def compares_times(check: Check) -> bool:
    """Whether the check compares two sides' response times (not a gain across two
    conditions, nor a value against a number)."""
    if not check.b or check.expect in ("about", "larger_gain"):
        return False
    if check.expect == "crossover":
        return True
    return check.metric in WEB_METRICS or check.metric.startswith("transfer_median_ms_")


def _times(datas: list[PointData], subset: Requests | None) -> list[np.ndarray]:
    runs = [requests_of(d, subset)["response_time_ms"].to_numpy(np.float64) for d in datas]
    return [r for r in runs if len(r)]


def _panel_key(check: Check, where: dict[str, Any]) -> str:
    """Checks of one claim that draw the same curves (the same sides over the same
    requests) share a panel."""
    subset = requests_counted(check)
    return json.dumps(
        [check.a, check.b, where, subset.model_dump() if subset else None],
        sort_keys=True,
        default=str,
    )


def _panels_of(claim: Claim, evaluator: Evaluator) -> list[Panel]:
    """A panel per distinct pair of curves among the claim's response-time checks, titled
    with the check and the verdicts of the checks drawn from it."""
    instances: dict[str, tuple[Check, dict[str, Any], str]] = {}
    for check in filter(compares_times, claim.checks):
        for where in evaluator.groups(check):
            row = evaluate_check(evaluator, check, where)
            key = _panel_key(check, where)
            if key in instances:  # another metric over the same curves: its verdict too
                first, _, title = instances[key]
                metric = METRICS.get(check.metric, check.metric)
                instances[key] = (first, where, f"{title}; {metric}: {row.verdict}")
            else:
                instances[key] = (check, where, f"{row.check}: {row.verdict}")
    found = []
    for check, where, title in instances.values():
        subset = requests_counted(check)
        runs = {n: _times(evaluator.selected(where, getattr(check, n)), subset) for n, _ in SIDES}
        selections = {
            n: " ".join(value_text(v) for v in getattr(check, n).values()) for n, _ in SIDES
        }
        if all(runs.values()):
            found.append((title, runs, selections))
    return found


def _draw(ax: Axes, panel: Panel, number: int) -> list[pd.DataFrame]:
    """One panel's a and b curves; the pooled curves' data."""
    title, runs, selections = panel
    frames = []
    for (name, linestyle), colour in zip(SIDES, ("C0", "C3"), strict=True):
        style = {"color": colour, "linestyle": linestyle}
        for run in runs[name]:
            thin = ecdf(run)
            ax.plot(
                thin["response_time_ms"],
                thin["cumulative_percent"],
                drawstyle="steps-post",
                linewidth=0.7,
                alpha=0.35,
                **style,
            )
        pooled = ecdf(np.concatenate(runs[name]))
        ax.plot(
            pooled["response_time_ms"],
            pooled["cumulative_percent"],
            drawstyle="steps-post",
            label=f"{name}: {selections[name]} ({len(runs[name])} runs)",
            **style,
        )
        frames.append(pooled.assign(panel=number, side=name, selection=selections[name]))
    ax.set_xscale("log")
    ax.set_ylim(0, 100)
    ax.set_title(textwrap.fill(title, TITLE_WIDTH_CHARS), fontsize="small")
    ax.set_xlabel("response time (ms)")
    ax.set_ylabel("cumulative %")
    ax.grid(True, which="both", alpha=0.3)
    legend(ax, loc="upper left")
    return frames


def claim_figure(index: int, claim: Claim, evaluator: Evaluator, out: Path) -> FigureFile | None:
    """The claim's figure (figures/claim-N-SLUG), or None when none of its checks compares
    response times or no run of a side has a completed request."""
    found = _panels_of(claim, evaluator)
    if not found:
        return None
    figure, axes = panels(len(found), height=3.8)
    frames = [
        f for i, (ax, p) in enumerate(zip(axes, found, strict=True)) for f in _draw(ax, p, i + 1)
    ]
    data = pd.concat(frames, ignore_index=True)[
        ["panel", "side", "selection", "response_time_ms", "cumulative_percent"]
    ]
    caption = (
        "The claim's checks as response-time CDFs, a panel per check instance: a (solid) is"
        " the configuration the claim is about, b (dashed) its baseline, over the requests"
        " the check's metric counts; each side's runs pooled, thin curves each run's; the"
        " panel's title ends with the check's verdict (the findings table)."
    )
    stem = f"claim-{index + 1}-{slug(claim.claim)[:40]}"
    return save(figure, data, out, stem, claim.claim, caption)


def claim_figures(
    claims: list[Claim], datas: list[PointData], summary: pd.DataFrame, out: Path
) -> list[FigureFile]:
    """A figure per claim that compares response times (claim_figure), and one of gains
    per claim with a larger_gain check (gain_figure)."""
    evaluator = Evaluator(datas, summary)
    drawn = [claim_figure(i, claim, evaluator, out) for i, claim in enumerate(claims)]
    drawn += [gain_figure(i, claim, evaluator, out) for i, claim in enumerate(claims)]
    return [f for f in drawn if f is not None]


def _gain_rows(check: Check, where: dict[str, Any], evaluator: Evaluator) -> pd.DataFrame:
    """a's gain over b in the check's metric (b - a, paired run by run) with its 95 %
    interval: for each base RTT of the client-server pairs, over the replies the check
    counts, and for each reply size class at every RTT."""
    above = check.requests.reply_bytes_above if check.requests is not None else 0
    rtts = sorted(
        {
            float(rtt)
            for d in evaluator.selected(where, check.a)
            if "base_rtt_ms" in d.web
            for rtt in d.web["base_rtt_ms"].dropna().unique()
        }
    )
    conditions = [
        (GAIN_PANELS[0], f"{rtt:g}", Requests(reply_bytes_above=above, rtt_ms=(rtt, rtt)))
        for rtt in rtts
    ]
    conditions += [
        (GAIN_PANELS[1], text, size_class(low, high)) for _, text, low, high in SIZE_CLASSES
    ]
    rows = []
    for panel, x, subset in conditions:
        gain = gains(evaluator, check, where, subset)
        interval = mean_interval(gain.values, paired=True)
        rows.append(
            {
                "panel": panel,
                "x": x,
                "gain": interval.estimate,
                "ci95_low": interval.low,
                "ci95_high": interval.high,
                "pairs": len(gain.runs),
            }
        )
    return pd.DataFrame(rows)


def gain_figure(index: int, claim: Claim, evaluator: Evaluator, out: Path) -> FigureFile | None:
    """For a claim with a larger_gain check: a's gain over b by base RTT and by reply
    size, each with its 95 % interval over the paired runs (figures/claim-N-gain-SLUG);
    None without such a check or paired runs."""
    check = next((c for c in claim.checks if c.expect == "larger_gain"), None)
    if check is None:
        return None
    where = evaluator.groups(check)[0]
    table = _gain_rows(check, where, evaluator)
    table = table[table["pairs"] > 0]
    if not len(table):
        return None
    unit = difference_unit(check).strip()
    metric = METRICS.get(check.metric, check.metric)
    a, b = (" ".join(value_text(v) for v in side.values()) for side in (check.a, check.b))
    figure, axes = panels(2, sharex=False)
    for ax, panel in zip(axes, GAIN_PANELS, strict=True):
        here = table[table["panel"] == panel]
        ax.errorbar(
            here["x"],
            here["gain"],
            yerr=[here["gain"] - here["ci95_low"], here["ci95_high"] - here["gain"]],
            fmt="o",
            capsize=3,
        )
        ax.axhline(0, color="grey", linewidth=0.8)
        ax.set_xlabel(panel.removeprefix("by ").capitalize())
        ax.set_ylabel(f"gain of {a} over {b} ({unit})")
        ax.grid(True, alpha=0.3)
    above = check.requests.model_copy(update={"rtt_ms": None}) if check.requests else None
    axes[0].set_title(f"{metric}, {subset_text(above) if above else 'all replies'}")
    axes[1].set_title(f"{metric}, all base RTTs")
    caption = (
        f"a's gain over b (b − a, run by run, paired by seed) in {metric},"
        " with its 95 % t interval over the pairs (no bar: fewer than two pairs): left, for"
        " each base RTT of a client-server pair (link delays, no queueing); right, for each"
        " reply size class."
    )
    stem = f"claim-{index + 1}-gain-{slug(claim.claim)[:40]}"
    return save(figure, table, out, stem, f"{claim.claim}: gain by RTT and size", caption)
