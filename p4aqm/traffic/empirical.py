"""Empirical distributions read from ns-2 style .cdf files, sampled with numpy.

A file has one line per observed value: `value count cumulative_probability`, values
increasing, the cumulative column non-decreasing and ending at 1.

Sampling is the discrete form of ns-2's EmpiricalRandomVariable (interpolation off): draw
u uniform on [0, 1) and return the smallest value whose cumulative probability is >= u.
Only values that were observed come out. Interpolating between neighbours would invent
sizes nobody measured and, for files per page or pages per server, non-integers.
"""

from dataclasses import dataclass
from pathlib import Path

import numpy as np

# The cumulative column is printed to 12 significant digits.
_CUMULATIVE_TOLERANCE = 1e-9


class DataFileError(ValueError):
    """A data file that cannot be used; the message names the file and, if any, the line."""


@dataclass(frozen=True)
class EmpiricalDistribution:
    values: np.ndarray
    cumulative: np.ndarray
    source: str

    def sample(self, rng: np.random.Generator, size: int | None = None) -> np.ndarray | float:
        """Values drawn by inverse CDF; a scalar when size is None."""
        u = rng.random(size)
        index = np.searchsorted(self.cumulative, u, side="left")
        return self.values[index]

    def probabilities(self) -> np.ndarray:
        """The probability of each value."""
        return np.diff(self.cumulative, prepend=0.0)

    def mean(self) -> float:
        return float(np.dot(self.values, self.probabilities()))

    def at_most(self, limit: float) -> "EmpiricalDistribution":
        """The distribution conditioned on value <= limit.

        Sampling it is the same in law as drawing again until a value <= limit comes out,
        without a loop whose length depends on the draw.
        """
        keep = self.values <= limit
        if not keep.any():
            raise ValueError(f"{self.source}: no value is <= {limit}")
        cumulative = self.cumulative[keep]
        return EmpiricalDistribution(
            self.values[keep], cumulative / cumulative[-1], f"{self.source} (<= {limit})"
        )


def load_cdf(path: Path) -> EmpiricalDistribution:
    """Read and check a .cdf file; errors name the file and the line."""
    try:
        text = path.read_text()
    except OSError as error:
        raise DataFileError(f"{path}: cannot read the distribution: {error.strerror}") from error
    values: list[float] = []
    counts: list[int] = []
    cumulative: list[float] = []
    line_numbers: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        fields = line.split()
        if len(fields) != 3:
            raise DataFileError(
                f"{where}: expected 'value count cumulative_probability', got {line!r}"
            )
        try:
            value, count, cum = float(fields[0]), int(fields[1]), float(fields[2])
        except ValueError as error:
            raise DataFileError(f"{where}: not a number: {line!r}") from error
        if not np.isfinite(value):
            raise DataFileError(f"{where}: value {fields[0]} is not finite")
        if count <= 0:
            raise DataFileError(f"{where}: count {count} is not positive")
        if not 0.0 < cum <= 1.0 + _CUMULATIVE_TOLERANCE:
            raise DataFileError(f"{where}: cumulative probability {cum} is outside (0, 1]")
        if values and value <= values[-1]:
            raise DataFileError(f"{where}: value {value} does not increase on {values[-1]}")
        if cumulative and cum < cumulative[-1]:
            raise DataFileError(
                f"{where}: cumulative probability {cum} decreases from {cumulative[-1]}"
            )
        values.append(value)
        counts.append(count)
        cumulative.append(cum)
        line_numbers.append(number)
    if not values:
        raise DataFileError(f"{path}: no values")
    if abs(cumulative[-1] - 1.0) > _CUMULATIVE_TOLERANCE:
        raise DataFileError(
            f"{path}:{line_numbers[-1]}: the last cumulative probability is {cumulative[-1]}, not 1"
        )
    # The counts and the cumulative column must tell the same story: a line edited by
    # hand (or a column shifted) shows up here rather than as a subtly wrong load.
    from_counts = np.cumsum(counts) / sum(counts)
    mismatch = np.flatnonzero(np.abs(from_counts - np.array(cumulative)) > _CUMULATIVE_TOLERANCE)
    if mismatch.size:
        first = int(mismatch[0])
        raise DataFileError(
            f"{path}:{line_numbers[first]}: cumulative probability {cumulative[first]} disagrees "
            f"with the counts ({from_counts[first]:.12g})"
        )
    cum_array = np.array(cumulative)
    cum_array[-1] = 1.0  # so that no draw u < 1 can fall past the last value
    return EmpiricalDistribution(np.array(values), cum_array, str(path))
