"""The fidelity table: per point, how faithful its emulation was (its fidelity.json,
p4aqm/experiments/fidelity.py), and whether it ran within the bounds.

A point outside its bounds keeps its results in every table and figure; this table and
the summary's `fidelity` column say so, with the reasons.
"""

import pandas as pd

from p4aqm.experiments.fidelity import read_fidelity
from p4aqm.report.load import PointData

HEADERS = {
    "results": "results",
    "point": "point",
    "lateness_p50_us": "departure lateness p50 (µs)",
    "lateness_p99_us": "p99 (µs)",
    "lateness_max_us": "max (µs)",
    "lateness_p99_bound_us": "p99 bound (µs)",
    "late_pages": "late page starts",
    "pages": "page starts",
    "start_late_p99_ms": "page start lateness p99 (ms)",
    "monitor_overruns": "monitor overruns",
    "monitor_missed": "monitor missed periods",
    "point_cpu_cores": "point CPU (cores)",
    "routers_cpu_cores": "routers' CPU (cores)",
    "machine_busy_share": "machine busy",
    "load_average_1min": "load average",
    "verdict": "fidelity",
}
NOT_MEASURED = "not measured"
WITHIN = "within bounds"


def verdict(fidelity: dict | None) -> str:
    if fidelity is None:
        return NOT_MEASURED
    outside = fidelity.get("outside_bounds", [])
    return "OUTSIDE BOUNDS: " + "; ".join(outside) if outside else WITHIN


def _row(data: PointData) -> dict:
    point = data.point
    fidelity = read_fidelity(point.folder)
    row: dict = {"results": point.source, "point": point.name, "verdict": verdict(fidelity)}
    if fidelity is None:
        return row
    routers = fidelity["routers"].values()
    # The worst router speaks for the point.
    for figure in ("lateness_p50_us", "lateness_p99_us", "lateness_max_us"):
        row[figure] = max((r[figure] for r in routers), default=None)
    for figure in ("monitor_overruns", "monitor_missed"):
        row[figure] = sum(r.get(figure, 0) for r in routers)
    row["lateness_p99_bound_us"] = fidelity.get("lateness_p99_bound_us")
    pages = fidelity.get("pages", {})
    row |= {k: pages.get(k) for k in ("pages", "late_pages", "start_late_p99_ms")}
    cpu = fidelity.get("cpu", {})
    figures = ("point_cpu_cores", "routers_cpu_cores", "machine_busy_share", "load_average_1min")
    row |= {k: cpu.get(k) for k in figures}
    return row


def fidelity_table(datas: list[PointData]) -> pd.DataFrame:
    """One row per point, the columns of HEADERS."""
    return pd.DataFrame([_row(d) for d in datas], columns=list(HEADERS))
