"""Pearson's chi-square test of draws against an empirical distribution."""

import math

import numpy as np

from p4aqm.traffic.empirical import EmpiricalDistribution


def chi_square(
    distribution: EmpiricalDistribution, draws: np.ndarray, bins: int = 20
) -> tuple[float, int]:
    """Pearson's statistic over bins of consecutive values of about equal probability,
    and its degrees of freedom."""
    before = np.concatenate([[0.0], distribution.cumulative[:-1]])
    bin_of_value = np.minimum((before * bins).astype(int), bins - 1)
    expected = np.bincount(bin_of_value, weights=distribution.probabilities(), minlength=bins)
    index = np.searchsorted(distribution.values, draws)
    assert np.array_equal(distribution.values[index], draws), "a draw that was never observed"
    observed = np.bincount(bin_of_value[index], minlength=bins)
    used = expected > 0
    n = len(draws)
    statistic = float(((observed[used] - n * expected[used]) ** 2 / (n * expected[used])).sum())
    return statistic, int(used.sum()) - 1


def critical_value(degrees: int, z: float = 3.09) -> float:
    """The chi-square quantile at 1 - 0.001 (z = 3.09), Wilson-Hilferty approximation."""
    k = degrees
    return k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3
