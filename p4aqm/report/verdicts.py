"""The verdict rules: what an interval (p4aqm/report/intervals.py) says of a check.

Three outcomes, and a fourth for a check no point matched:
- reproduced: the data support the claim at the stated confidence;
- not reproduced: the data exclude the claim at that confidence;
- inconclusive: neither (too few runs, too much noise, or an estimate between the two);
- no data: no point matched one side; it does not count towards its claim.

A direction (lower, higher, differ, and a larger gain) uses the 95 % interval of a - b:
reproduced when the whole interval is on the claimed side of zero and the estimate is
beyond the threshold (the threshold is the least effect the paper's words claim; the
sign is what the interval must settle, the estimate must show the size); not reproduced
when the whole interval is short of the threshold on the claimed side (with threshold 0:
entirely on the other side of zero), so that an effect of the claimed size is excluded.

A bound or a region (same, at_most, about) uses the 90 % interval, as two one-sided
tests at 5 % do: reproduced when it lies inside the region (same: within the margin
either way; at_most: below the bound; about: within `within` of the value); not
reproduced when it lies entirely outside.

A crossover is reproduced when at two or more percentiles a is faster (the 95 % interval
of the paired difference below zero) and at two or more it is slower (above zero); not
reproduced when one is faster, beyond its interval, at every percentile compared.

An interval the runs cannot give (one run a side, or one pair) is always inconclusive.
A claim is reproduced when each of its checks with data is, not reproduced when any
check is not, inconclusive otherwise, and "no data" when none of its checks had data.
"""

from p4aqm.report.intervals import Interval

REPRODUCED, NOT, INCONCLUSIVE, NO_DATA = (
    "reproduced",
    "not reproduced",
    "inconclusive",
    "no data",
)
VERDICTS = (REPRODUCED, NOT, INCONCLUSIVE, NO_DATA)
# A crossover needs this many percentiles each way.
CROSSOVER_PERCENTILES_EACH_WAY = 2


def direction(interval: Interval, sign: int, threshold: float) -> str:
    """a - b claimed below -threshold (sign -1, lower) or above +threshold (sign +1)."""
    if not interval.known:
        return INCONCLUSIVE
    # The effect in the claimed direction: positive when the claim holds.
    low, high = sorted((sign * interval.low, sign * interval.high))
    if low > 0 and sign * interval.estimate >= threshold:
        return REPRODUCED
    if high < threshold:
        return NOT
    return INCONCLUSIVE


def differ(interval: Interval, threshold: float) -> str:
    """a - b claimed beyond ±threshold, either way (threshold > 0)."""
    if not interval.known:
        return INCONCLUSIVE
    lower, higher = direction(interval, -1, threshold), direction(interval, 1, threshold)
    if REPRODUCED in (lower, higher):
        return REPRODUCED
    if -threshold < interval.low and interval.high < threshold:
        return NOT
    return INCONCLUSIVE


def inside(interval: Interval, low: float, high: float) -> str:
    """The estimate claimed inside [low, high] (a 90 % interval: two one-sided tests)."""
    if not interval.known:
        return INCONCLUSIVE
    if low <= interval.low and interval.high <= high:
        return REPRODUCED
    if interval.low > high or interval.high < low:
        return NOT
    return INCONCLUSIVE


def crossover(intervals: list[Interval]) -> tuple[str, int, int]:
    """(verdict, percentiles where a is faster, where a is slower) from the paired
    intervals of a - b at each percentile."""
    if not intervals or not all(i.known for i in intervals):
        return INCONCLUSIVE, 0, 0
    faster = sum(i.high < 0 for i in intervals)
    slower = sum(i.low > 0 for i in intervals)
    if min(faster, slower) >= CROSSOVER_PERCENTILES_EACH_WAY:
        return REPRODUCED, faster, slower
    if len(intervals) in (faster, slower):
        return NOT, faster, slower
    return INCONCLUSIVE, faster, slower


def claim_verdict(verdicts: list[str]) -> str:
    """All checks with data reproduced: reproduced; any not: not; else inconclusive."""
    judged = [v for v in verdicts if v != NO_DATA]
    if not judged:
        return NO_DATA
    if NOT in judged:
        return NOT
    if all(v == REPRODUCED for v in judged):
        return REPRODUCED
    return INCONCLUSIVE
