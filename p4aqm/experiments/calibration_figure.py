"""The figure of a web-load calibration (p4aqm/traffic/calibration.py): the measured
(users, load) points and the fitted line, drawn by `p4aqm calibrate`. It lives with the
command, not in the traffic package, which the hosts run and which needs no matplotlib."""

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from p4aqm.traffic.calibration import Calibration


def plot_calibration(calibration: Calibration, path: Path) -> None:
    """The measured points and the fitted line, written to path (any Agg format)."""
    # A Figure of its own, without pyplot: no global backend, no display needed.
    figure = Figure(figsize=(6, 4), layout="constrained")
    axes = figure.add_subplot()
    users = [p.users for p in calibration.points]
    load_mbps = [p.offered_load_bps / 1e6 for p in calibration.points]
    axes.plot(users, load_mbps, "o", label="measured")
    line_users = np.linspace(0, max(users) * 1.1, 50)
    line = (calibration.slope_bps_per_user * line_users + calibration.intercept_bps) / 1e6
    fit_label = f"{calibration.fit} fit: {calibration.slope_bps_per_user:.0f} bit/s per user"
    if calibration.r_squared is not None:
        fit_label += f", R² {calibration.r_squared:.3f}"
    axes.plot(line_users, line, "-", label=fit_label)
    axes.set_xlabel("users")
    axes.set_ylabel("offered load (Mbit/s)")
    axes.set_xlim(left=0)
    axes.set_ylim(bottom=0)
    axes.grid(True, alpha=0.3)
    axes.legend()
    figure.savefig(path, dpi=120)
