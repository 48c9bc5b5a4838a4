"""The bulk TCP flows per configuration, as the Net100 GridFTP table compared untuned,
tuned and parallel transfers: goodput, retransmits and congestion events, a panel each
(those some point has), every run a dot and the mean with its 95 % interval over the
runs."""

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from p4aqm.report.figures import FigureFile, save
from p4aqm.report.grouping import Labeller, configuration_key
from p4aqm.report.intervals import mean_interval
from p4aqm.report.load import PointData
from p4aqm.report.metrics import METRICS

BULK_METRICS = ("bulk_goodput_mbps", "bulk_retransmits", "congestion_events")
PANEL_HEIGHT = 2.4


def bulk_by_configuration(
    datas: list[PointData], summary: pd.DataFrame, labeller: Labeller, out: Path
) -> FigureFile | None:
    """The figure (figures/bulk-by-configuration), or None when no point has bulk flows.
    `summary` is the report's summary table, one row per point of `datas`, in order."""
    shown = [m for m in BULK_METRICS if m in summary and summary[m].notna().any()]
    if "bulk_goodput_mbps" not in shown:
        return None
    labels = [labeller.label(configuration_key(d.point)) for d in datas]
    table = summary[shown].assign(configuration=labels)
    order = list(dict.fromkeys(labels))
    figure = Figure(
        figsize=(max(6.0, 1.3 * len(order)), PANEL_HEIGHT * len(shown)), layout="constrained"
    )
    axes = figure.subplots(len(shown), 1, sharex=True, squeeze=False)[:, 0]
    rows = []
    for ax, metric in zip(axes, shown, strict=True):
        for x, label in enumerate(order):
            values = table.loc[table["configuration"] == label, metric].dropna()
            jitter = np.linspace(-0.12, 0.12, len(values)) if len(values) > 1 else [0.0]
            ax.plot(x + np.asarray(jitter), values, "o", color="C0", alpha=0.45, markersize=4)
            interval = mean_interval(values.to_list())
            if np.isfinite(interval.low):
                ax.errorbar(x + 0.3, interval.estimate, capsize=4, color="black", fmt="s",
                            yerr=[[interval.estimate - interval.low],
                                  [interval.high - interval.estimate]])  # fmt: skip
            rows.append(
                {"metric": metric, "configuration": label, "runs": len(values),
                 "mean": interval.estimate, "ci95_low": interval.low,
                 "ci95_high": interval.high}
            )  # fmt: skip
        ax.set_ylabel(METRICS[metric], fontsize="small")
        ax.grid(True, axis="y", alpha=0.3)
    axes[-1].set_xticks(range(len(order)), order, rotation=15, ha="right", fontsize="small")
    caption = (
        "Per configuration, the bulk TCP flows' goodput (receivers, summed over the flows),"
        " their senders' retransmits, and the congestion events the TCP tracer saw (where it"
        " ran): each run a dot, the square the mean over the runs with its 95 % t interval."
    )
    data = pd.DataFrame(rows)
    return save(figure, data, out, "bulk-by-configuration", "Bulk TCP by configuration", caption)
