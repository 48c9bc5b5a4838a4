"""The calibration's figure, drawn by the report package."""

from pathlib import Path

from p4aqm.experiments.calibration_figure import plot_calibration
from p4aqm.traffic.calibration import CalibrationPoint, fit_calibration
from p4aqm.traffic.web.browsing import WebParams


def test_plot_is_written_headless(tmp_path: Path) -> None:
    points = [
        CalibrationPoint(users=u, offered_load_bps=load) for u, load in ((1000, 3e6), (2000, 6.1e6))
    ]
    calibration = fit_calibration(points, WebParams(), {"bottleneck_rate_bps": 10e6})
    plot_calibration(calibration, tmp_path / "fit.png")
    assert (tmp_path / "fit.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
