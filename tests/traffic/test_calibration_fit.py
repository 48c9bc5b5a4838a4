"""Calibration: the fits, users for a load, the file."""

from pathlib import Path

import pytest

from p4aqm.traffic.calibration import (
    CalibrationPoint,
    fit_calibration,
    load_calibration,
    save_calibration,
    users_for_load,
)
from p4aqm.traffic.web.browsing import WebParams

TOPOLOGY = {"bottleneck_rate_bps": 10e6, "rtt_ms": [4, 28, 54]}


def points(pairs: list[tuple[int, float]]) -> list[CalibrationPoint]:
    return [CalibrationPoint(users=u, offered_load_bps=load) for u, load in pairs]


def test_fit_through_the_origin() -> None:
    # Least squares through the origin: slope = sum(u * load) / sum(u^2).
    measured = points([(1000, 3.0e6), (2000, 5.6e6), (3000, 9.0e6)])
    calibration = fit_calibration(measured, WebParams(), TOPOLOGY)
    expected = (1000 * 3.0e6 + 2000 * 5.6e6 + 3000 * 9.0e6) / (1000**2 + 2000**2 + 3000**2)
    assert calibration.slope_bps_per_user == pytest.approx(expected)
    assert calibration.intercept_bps == 0 and 0.95 < calibration.r_squared < 1
    # 90 % of 10 Mbit/s at ~2943 bit/s per user.
    assert users_for_load(calibration, 0.9, 10e6) == round(9e6 / expected)


def test_affine_fit_recovers_an_intercept() -> None:
    measured = points([(1000, 2.5e6), (2000, 4.5e6), (4000, 8.5e6)])
    calibration = fit_calibration(measured, WebParams(), TOPOLOGY, fit="affine")
    assert calibration.slope_bps_per_user == pytest.approx(2000)
    assert calibration.intercept_bps == pytest.approx(0.5e6)
    assert calibration.r_squared == pytest.approx(1)
    assert users_for_load(calibration, 1.1, 10e6) == 5250
    with pytest.raises(ValueError, match="two user counts"):
        fit_calibration(points([(1000, 2e6)]), WebParams(), TOPOLOGY, fit="affine")


def test_bad_loads_are_refused() -> None:
    calibration = fit_calibration(points([(1000, 3e6)]), WebParams(), TOPOLOGY)
    assert calibration.r_squared is None
    with pytest.raises(ValueError, match="load_fraction -0.5"):
        users_for_load(calibration, -0.5, 10e6)
    with pytest.raises(ValueError, match="bottleneck_rate_bps 0"):
        users_for_load(calibration, 0.5, 0)
    with pytest.raises(ValueError, match="below what one user offers"):
        users_for_load(calibration, 1e-6, 10e6)
    with pytest.raises(ValueError, match="not positive"):
        fit_calibration(points([(1000, 0.0)]), WebParams(), TOPOLOGY)


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_file_round_trip_keeps_the_settings(tmp_path: Path, suffix: str) -> None:
    web = WebParams(think_time_cap_s=300, think_time_policy="clip", max_parallel=2)
    calibration = fit_calibration(points([(500, 1.5e6), (1500, 4.4e6)]), web, TOPOLOGY)
    path = tmp_path / f"calibration{suffix}"
    save_calibration(calibration, path)
    assert load_calibration(path) == calibration
    assert load_calibration(path).web.think_time_policy == "clip"


def test_bad_calibration_files_are_named(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("points: []\n")
    with pytest.raises(ValueError, match=f"^{path}: not a calibration"):
        load_calibration(path)
    with pytest.raises(ValueError, match="cannot read"):
        load_calibration(tmp_path / "none.yaml")
    calibration = fit_calibration(points([(1000, 3e6)]), WebParams(), TOPOLOGY)
    with pytest.raises(ValueError, match="saved as .yaml"):
        save_calibration(calibration, tmp_path / "c.txt")
