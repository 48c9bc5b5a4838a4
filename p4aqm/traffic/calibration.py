"""How many web users offer a given load: the fit of measured (users, load) points.

As in the seed studies, load is set by the number of emulated users and calibrated on the
real network with an unconstrained bottleneck; the measuring is done elsewhere, this is
the arithmetic and the file that keeps it together with the settings it holds for.

The default fit is a line through the origin, load = slope * users: no users offer no
load, Christiansen et al. found load linear in users (their Figs. 3 and 4, on an
unconstrained 100 Mbit/s link), and with web loads this noisy (Mah's replies are heavy-
tailed) one parameter is better pinned down by a handful of points than two. The affine
fit is there as a check: an intercept far from 0 compared with the loads says the
generator is not linear over the range (e.g. a client that runs out of CPU at high user
counts), which is a reason to look at the measurement, not to fit it.
"""

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from p4aqm.traffic.web.browsing import WebParams

FitKind = Literal["origin", "affine"]


class CalibrationPoint(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    users: int = Field(gt=0)
    offered_load_bps: float = Field(ge=0)


class Calibration(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    points: list[CalibrationPoint] = Field(min_length=1)
    fit: FitKind
    slope_bps_per_user: float = Field(gt=0)
    intercept_bps: float
    r_squared: float | None = Field(
        description="1 - SS_res / SS_tot about the mean, for either fit; None for one point"
    )
    web: WebParams
    topology: dict[str, JsonValue] = Field(
        description="the network it was measured on: bottleneck, RTTs, hosts, servers"
    )


def fit_calibration(
    points: Sequence[CalibrationPoint],
    web: WebParams,
    topology: dict[str, JsonValue],
    fit: FitKind = "origin",
) -> Calibration:
    users = np.array([p.users for p in points], dtype=float)
    load = np.array([p.offered_load_bps for p in points], dtype=float)
    if fit == "origin":
        slope, intercept = float(users @ load / (users @ users)), 0.0
    else:
        if len(set(users)) < 2:
            raise ValueError("an affine fit needs points at two user counts or more")
        slope, intercept = (float(c) for c in np.polyfit(users, load, 1))
    if slope <= 0:
        raise ValueError(f"the fitted load per user is {slope:.3g} bit/s, not positive")
    residual = load - (slope * users + intercept)
    total = float(((load - load.mean()) ** 2).sum())
    r_squared = 1 - float(residual @ residual) / total if total > 0 else None
    return Calibration(
        points=list(points),
        fit=fit,
        slope_bps_per_user=slope,
        intercept_bps=intercept,
        r_squared=r_squared,
        web=web,
        topology=topology,
    )


def users_for_load(
    calibration: Calibration, load_fraction: float, bottleneck_rate_bps: float
) -> int:
    """The number of users (rounded) that offers load_fraction of the bottleneck's rate."""
    if load_fraction <= 0:
        raise ValueError(f"load_fraction {load_fraction} is not positive")
    if bottleneck_rate_bps <= 0:
        raise ValueError(f"bottleneck_rate_bps {bottleneck_rate_bps} is not positive")
    target_bps = load_fraction * bottleneck_rate_bps
    users = round((target_bps - calibration.intercept_bps) / calibration.slope_bps_per_user)
    if users < 1:
        raise ValueError(
            f"{target_bps:.0f} bit/s is below what one user offers by this calibration"
        )
    return users


def save_calibration(calibration: Calibration, path: Path) -> None:
    """As YAML (.yaml, .yml) or JSON (.json), through a temporary file and a rename."""
    data = calibration.model_dump(mode="json")
    if path.suffix in (".yaml", ".yml"):
        text = yaml.safe_dump(data, sort_keys=False)
    elif path.suffix == ".json":
        text = json.dumps(data, indent=2) + "\n"
    else:
        raise ValueError(f"{path}: a calibration is saved as .yaml, .yml or .json")
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


def load_calibration(path: Path) -> Calibration:
    try:
        data = yaml.safe_load(path.read_text())  # YAML reads JSON too
    except OSError as error:
        raise ValueError(f"{path}: cannot read the calibration: {error.strerror}") from None
    except yaml.YAMLError as error:
        raise ValueError(f"{path}: not YAML or JSON: {error}") from None
    try:
        return Calibration.model_validate(data)
    except ValidationError as error:
        raise ValueError(f"{path}: not a calibration: {error}") from None
