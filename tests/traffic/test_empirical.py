"""Loading .cdf files (every error names file and line) and sampling them by inverse CDF."""

from pathlib import Path

import numpy as np
import pytest
from goodness_of_fit import chi_square, critical_value

from p4aqm.traffic.empirical import DataFileError, load_cdf
from p4aqm.traffic.mah import DATA_DIR

DRAWS = 20_000


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad.cdf"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("1 1 0.5\n2 1\n", 2, "expected 'value count cumulative_probability'"),
        ("1 1 0.5\n2 x 1\n", 2, "not a number"),
        ("1 1 0.5\n1 1 1\n", 2, "does not increase"),
        ("1 2 0.5\n2 1 0.25\n3 1 1\n", 2, "decreases"),
        ("1 1 0.5\n2 1 0.9\n", 2, "not 1"),
        ("1 1 0.25\n\n2 1 0.75\n3 2 1\n", 3, "disagrees with the counts"),
        ("1 0 0.5\n2 1 1\n", 1, "not positive"),
        ("1 1 1.5\n", 1, "outside (0, 1]"),
        ("inf 1 1\n", 1, "not finite"),
    ],
)
def test_malformed_line_is_named(tmp_path: Path, text: str, line: int, words: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(DataFileError) as error:
        load_cdf(path)
    assert str(error.value).startswith(f"{path}:{line}: ")
    assert words in str(error.value)


def test_missing_and_empty_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match=f"^{tmp_path / 'none.cdf'}: cannot read"):
        load_cdf(tmp_path / "none.cdf")
    with pytest.raises(DataFileError, match="no values"):
        load_cdf(write(tmp_path, "\n"))


def test_mah_files_load_with_the_readme_statistics() -> None:
    # n, mean and max from data/mah-http/README.md, computed there independently.
    expected = {
        "HttpRequestLength.cdf": (383, 337.34, 1373),
        "HttpReplyLength.cdf": (2233, 7230.97, 1636039),
        "HttpConnections.cdf": (26, 2.838, 65),
        "HttpServerStay.cdf": (23, 4.010, 54),
        "HttpThinkTime.cdf": (1293, 1803.98, 86394.941),
    }
    for name, (distinct, mean, maximum) in expected.items():
        distribution = load_cdf(DATA_DIR / name)
        assert len(distribution.values) == distinct
        assert distribution.mean() == pytest.approx(mean, abs=0.01)
        assert distribution.values[-1] == maximum
        assert distribution.cumulative[-1] == 1.0


@pytest.mark.parametrize("name", sorted(p.name for p in DATA_DIR.glob("*.cdf")))
def test_sampling_matches_the_cdf(name: str) -> None:
    distribution = load_cdf(DATA_DIR / name)
    draws = distribution.sample(np.random.default_rng(1), DRAWS)
    statistic, degrees = chi_square(distribution, draws)
    assert statistic < critical_value(degrees), (statistic, degrees)


def test_the_test_rejects_wrong_sampling() -> None:
    rng = np.random.default_rng(2)
    # Off by one value: the bug an inverse CDF invites (side="right" plus one).
    files = load_cdf(DATA_DIR / "HttpConnections.cdf")
    index = np.searchsorted(files.cumulative, rng.random(DRAWS), side="left")
    shifted = files.values[np.minimum(index + 1, len(files.values) - 1)]
    statistic, degrees = chi_square(files, shifted)
    assert statistic > critical_value(degrees)
    # Every observed value equally likely: the counts ignored.
    replies = load_cdf(DATA_DIR / "HttpReplyLength.cdf")
    uniform = rng.choice(replies.values, DRAWS)
    statistic, degrees = chi_square(replies, uniform)
    assert statistic > critical_value(degrees)


def test_at_most_is_the_conditional_distribution() -> None:
    think = load_cdf(DATA_DIR / "HttpThinkTime.cdf")
    capped = think.at_most(600.0)
    keep = think.values <= 600.0
    assert np.allclose(
        capped.probabilities(), think.probabilities()[keep] / think.probabilities()[keep].sum()
    )
    with pytest.raises(ValueError, match="no value is <= 0.5"):
        think.at_most(0.5)
