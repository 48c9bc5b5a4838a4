"""The intervals the verdicts stand on (p4aqm/report/intervals.py): t intervals of
known width, coverage of the paired and unpaired intervals on
simulated runs, and pairing's gain on common-random-number data."""

import math

import numpy as np
import pytest

from p4aqm.report.intervals import (
    EQUIVALENCE_LEVEL,
    Run,
    difference,
    mean_interval,
    pairs,
    welch_interval,
)

# FIFO's and RED's median response times (ms) in three repetitions of one experiment
# (the same seeds): each side varies by about 6 %, their paired differences by 1-2 %.
FIFO_MS = (331.0, 352.0, 310.0)
RED_MS = (310.0, 324.0, 287.0)


def runs(values: tuple[float, ...] | list[float], first_seed: int = 1) -> list[Run]:
    return [Run(f"seed {first_seed + i}", v) for i, v in enumerate(values)]


def test_a_mean_of_three_runs_uses_t_with_two_degrees_of_freedom() -> None:
    interval = mean_interval([1.0, 2.0, 3.0])
    half = 4.3027 * 1.0 / math.sqrt(3)
    assert (interval.low, interval.high) == pytest.approx((2 - half, 2 + half), abs=1e-3)
    assert interval.runs_text == "n=3"
    assert not mean_interval([5.0]).known  # one run: no interval at all


def test_pairing_on_common_random_numbers_is_far_tighter() -> None:
    paired = difference(runs(RED_MS), runs(FIFO_MS), relative=True)
    assert paired.paired and paired.runs_text == "paired, n=3"
    assert -9.5 < paired.low < paired.estimate < paired.high < -5.0
    # The same numbers as if they came from unrelated seeds: Welch, and zero inside.
    unpaired = difference(runs(RED_MS), runs(FIFO_MS, first_seed=10), relative=True)
    assert not unpaired.paired and unpaired.runs_text == "unpaired, n=3+3"
    assert unpaired.low < 0 < unpaired.high
    assert (paired.high - paired.low) * 5 < unpaired.high - unpaired.low


def test_runs_pair_only_by_unique_common_keys() -> None:
    assert pairs(runs([1.0, 2.0, 3.0]), runs([1.0, 2.0], first_seed=2)) == [
        ("seed 2", 2.0, 1.0),
        ("seed 3", 3.0, 2.0),
    ]
    assert pairs(runs([1.0]), runs([1.0], first_seed=2)) is None  # nothing in common
    # One common seed: paired, but no interval; Welch where both sides have two runs.
    assert difference(runs([1.0]), runs([2.0]), relative=False).runs_text == "paired, n=1"
    one_common = difference(runs([1.0, 2.0]), runs([1.0, 2.0], first_seed=2), relative=False)
    assert one_common.runs_text == "unpaired, n=2+2" and one_common.known
    doubled = [Run("seed 1", 1.0), Run("seed 1", 2.0), Run("seed 2", 3.0)]
    assert pairs(doubled, runs([1.0, 2.0])) is None
    # Unpaired runs are still compared, by Welch.
    assert not difference(doubled, runs([1.0, 2.0]), relative=False).paired


def test_the_intervals_cover_the_true_difference_about_as_often_as_they_say() -> None:
    """Simulated experiments of 4 repetitions, a true 5 % difference, shared noise of 6 %
    and own noise of 1 %: both intervals should hold the 5 % in about 95 % of them."""
    rng = np.random.default_rng(7)
    covered = {"paired": 0, "welch": 0, "90 %": 0}
    trials = 2000
    for _ in range(trials):
        shared = 300 * (1 + rng.normal(0, 0.06, 4))
        b = shared * (1 + rng.normal(0, 0.01, 4))
        a = shared * 1.05 * (1 + rng.normal(0, 0.01, 4))
        paired = difference(runs(list(a)), runs(list(b)), relative=True)
        welch = welch_interval(list(a), list(b), relative=True)
        narrow = difference(runs(list(a)), runs(list(b)), True, EQUIVALENCE_LEVEL)
        covered["paired"] += paired.low <= 5 <= paired.high
        covered["welch"] += welch.low <= 5 <= welch.high
        covered["90 %"] += narrow.low <= 5 <= narrow.high
    assert 0.93 < covered["paired"] / trials < 0.97
    assert covered["welch"] / trials > 0.93  # conservative: it ignores the shared noise
    assert 0.87 < covered["90 %"] / trials < 0.93


def test_relative_differences_need_a_nonzero_baseline() -> None:
    assert not difference(runs([1.0, 2.0]), runs([0.0, 0.0]), relative=True).known
    assert difference(runs([1.0, 2.0]), runs([0.0, 0.0]), relative=False).estimate == 1.5


def test_interval_text() -> None:
    interval = difference(runs(RED_MS), runs(FIFO_MS), relative=True)
    assert interval.text(" %") == "−7.24 % [−9.28, −5.2] 95 %"
    assert mean_interval([5.0]).text(" ms", signed=False) == "5 ms (no interval)"
