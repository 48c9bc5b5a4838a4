"""Confidence intervals over runs: of a mean, and of a difference between two
configurations, paired where their runs share seeds.

The unit is a run (a point), never a request: the requests of one run share its queue,
its load and its seed, so they are not independent, and an interval over them would be
far too narrow. Each run gives one value of a metric (its median response time, its
loss, ...) and the intervals are over those values.

Method: Student t intervals. With the 3-5 runs a study affords, a percentile bootstrap
treats the runs seen as the whole population: for the mean of 3 runs its 95 % interval
is about 2.7 times narrower than the t interval (1.96 * sqrt(2/3) against t(2) = 4.30
standard errors), so it would call differences the next run could undo "reproduced".
A bootstrap-t needs a spread estimate inside each resample, which 3 values cannot give.
The t interval assumes each run's value (or paired difference) is roughly normal; each
is a median or mean over thousands of requests or packets, which makes that a fair
assumption, and with so few runs nothing else can be checked anyway. It is exact
arithmetic (scipy's t quantiles), so deterministic: no seed.

Pairing (common random numbers): the runs of one experiment with the same repetition
number share its seed (seed + repetition - 1, whatever the configuration), so they
draw the same users, pages and think times. A paired comparison takes a - b run by run,
over the seeds both sides ran, and a one-sample t interval of those differences: the
noise both configurations share cancels, which makes it much tighter than the two
sides' spreads suggest. Where the runs do not pair (no common seeds, or a side with two
runs of one seed), the comparison is unpaired: Welch's interval, which needs no equal
variances. Relative differences (percent of b) are taken per pair, 100 (a_i - b_i) /
b_i; unpaired, as 100 (mean a / mean b - 1) with the delta method's standard error.
"""

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

LEVEL = 0.95  # a difference's interval, and a direction's test
# The interval two one-sided tests at 5 % use: an equivalence, a bound, a value.
EQUIVALENCE_LEVEL = 0.90


@dataclass(frozen=True)
class Run:
    key: Hashable  # what pairs it with another configuration's run: its seed
    value: float


@dataclass(frozen=True)
class Interval:
    """An estimate (a mean, or a mean difference) with its interval at level; low and
    high are NaN when the runs cannot give one (fewer than two, or no spread to use)."""

    estimate: float
    low: float
    high: float
    level: float
    sizes: tuple[int, ...]  # (pairs,) or (runs,) for one sample; (runs of a, of b) unpaired
    paired: bool

    @property
    def known(self) -> bool:
        return math.isfinite(self.low) and math.isfinite(self.high)

    @property
    def runs_text(self) -> str:
        """How the interval was made: "paired, n=3", "unpaired, n=3+2" or "n=3"."""
        if len(self.sizes) == 2:
            return f"unpaired, n={self.sizes[0]}+{self.sizes[1]}"
        return f"paired, n={self.sizes[0]}" if self.paired else f"n={self.sizes[0]}"

    def text(self, unit: str, signed: bool = True) -> str:
        estimate = _number(self.estimate, signed)
        if not self.known:
            return f"{estimate}{unit} (no interval)"
        low, high = _number(self.low, signed), _number(self.high, signed)
        return f"{estimate}{unit} [{low}, {high}] {level_text(self.level)}"


def level_text(level: float) -> str:
    """0.95 as "95 %"."""
    return f"{100 * level:g} %"


def _number(value: float, signed: bool) -> str:
    if not math.isfinite(value):
        return "n/a"
    text = f"{value:+.3g}" if signed else f"{value:.3g}"
    if abs(value) >= 100:
        text = f"{value:+.0f}" if signed else f"{value:.0f}"
    return text.replace("-", "−")


def _unknown(estimate: float, level: float, sizes: tuple[int, ...], paired: bool) -> Interval:
    return Interval(estimate, math.nan, math.nan, level, sizes, paired)


def mean_interval(values: Sequence[float], level: float = LEVEL, paired: bool = False) -> Interval:
    """The t interval of the mean of values (one per run; or per pair of runs, paired)."""
    data = np.asarray(values, dtype=float)
    n = len(data)
    estimate = float(np.mean(data)) if n else math.nan
    if n < 2 or not np.all(np.isfinite(data)):
        return _unknown(estimate, level, (n,), paired)
    half = stats.t.ppf((1 + level) / 2, n - 1) * float(np.std(data, ddof=1)) / math.sqrt(n)
    return Interval(estimate, estimate - half, estimate + half, level, (n,), paired)


def pairs(a: Sequence[Run], b: Sequence[Run]) -> list[tuple[Hashable, float, float]] | None:
    """(key, a, b) of the runs with a common key, in key order; None unless each side has
    one run per key and some key is common."""
    by_key_a = {r.key: r.value for r in a}
    by_key_b = {r.key: r.value for r in b}
    if len(by_key_a) < len(a) or len(by_key_b) < len(b):
        return None
    common = sorted(by_key_a.keys() & by_key_b.keys(), key=str)
    return [(k, by_key_a[k], by_key_b[k]) for k in common] or None


def relative_percent(a: float, b: float) -> float:
    """100 (a - b) / b; NaN where b is 0 (no relative difference to speak of)."""
    return 100.0 * (a - b) / b if b else math.nan


def welch_interval(
    a: Sequence[float], b: Sequence[float], relative: bool, level: float = LEVEL
) -> Interval:
    """Unpaired: mean a - mean b (or 100 (mean a / mean b - 1), relative), Welch's t."""
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ma, mb = float(np.mean(xa)), float(np.mean(xb))
    sizes = (len(xa), len(xb))
    estimate = relative_percent(ma, mb) if relative else ma - mb
    if min(sizes) < 2 or not math.isfinite(estimate):
        return _unknown(estimate, level, sizes, False)
    va = float(np.var(xa, ddof=1)) / len(xa)
    vb = float(np.var(xb, ddof=1)) / len(xb)
    if relative:  # the delta method: var(ma / mb) ~ (va + (ma / mb)^2 vb) / mb^2
        va, vb = (100 / mb) ** 2 * va, (100 * ma / mb**2) ** 2 * vb
    variance = va + vb
    if variance == 0:
        return Interval(estimate, estimate, estimate, level, sizes, False)
    df = variance**2 / (va**2 / (len(xa) - 1) + vb**2 / (len(xb) - 1))
    half = stats.t.ppf((1 + level) / 2, df) * math.sqrt(variance)
    return Interval(estimate, estimate - half, estimate + half, level, sizes, False)


def difference(
    a: Sequence[Run], b: Sequence[Run], relative: bool, level: float = LEVEL
) -> Interval:
    """a - b (in percent of b, relative): paired over their common seeds where the runs
    pair, else unpaired (Welch). A single pair has no spread: Welch then, if each side
    has runs enough for it."""
    matched = pairs(a, b)
    if matched is None or (len(matched) < 2 and min(len(a), len(b)) >= 2):
        return welch_interval([r.value for r in a], [r.value for r in b], relative, level)
    return mean_interval([d.value for d in paired_differences(matched, relative)], level, True)


def paired_differences(matched: list[tuple[Hashable, float, float]], relative: bool) -> list[Run]:
    """a - b of each pair (in percent of b, relative), keyed as the pair."""
    return [Run(k, relative_percent(x, y) if relative else x - y) for k, x, y in matched]
