"""The report's figures. Each is a matplotlib Figure of its own (no pyplot: no global
state, no display; the Agg renderer draws it), saved as figures/STEM.png and .svg, with
the data it draws as figures/STEM.csv so that it can be replotted."""

import math
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from p4aqm.report.files import save_figure, write_csv
from p4aqm.report.grouping import (
    Labeller,
    SweepKey,
    configuration_key,
    is_numeric,
    panel_title,
    slug,
)
from p4aqm.report.load import PointData
from p4aqm.report.metrics import DIRECTION_TEXT, METRICS, depth_column
from p4aqm.schema import Column

FIGURES_DIR = "figures"
LEGEND_WIDTH_CHARS = 40
LINESTYLES = ("-", "--", ":", "-.")
# Above this many samples a time series' line is drawn as an image inside the SVG: a
# vector path of every 3 ms sample of a minute makes a file of megabytes.
RASTERIZE_ABOVE = 5000

Load = float | None


@dataclass(frozen=True)
class FigureFile:
    stem: str  # FIGURES_DIR/STEM.png, .svg and .csv
    title: str
    caption: str


def save(
    figure: Figure, data: pd.DataFrame, out: Path, stem: str, title: str, caption: str
) -> FigureFile:
    directory = out / FIGURES_DIR
    directory.mkdir(parents=True, exist_ok=True)
    save_figure(figure, directory / f"{stem}.png")
    save_figure(figure, directory / f"{stem}.svg")
    write_csv(directory / f"{stem}.csv", data)
    return FigureFile(stem, title, caption)


def panels(
    count: int, width: float = 4.2, height: float = 3.4, sharey: bool = True, sharex: bool = True
) -> tuple[Figure, list[Axes]]:
    """A figure of count panels, up to three a row."""
    columns = min(count, 3)
    rows = math.ceil(count / columns)
    figure = Figure(figsize=(width * columns, height * rows), layout="constrained")
    grid = figure.subplots(rows, columns, squeeze=False, sharex=sharex, sharey=sharey).ravel()
    for unused in grid[count:]:
        figure.delaxes(unused)
    return figure, list(grid[:count])


def _loads(keys: list[Load]) -> list[Load]:
    return sorted(set(keys), key=lambda load: (load is None, load or 0.0))


class _Styles:
    """A colour per configuration and a line style per results folder, so that in
    compare mode the same configuration of the two folders reads as a pair."""

    def __init__(self, labeller: Labeller) -> None:
        self.labeller = labeller
        self.colours: dict[tuple[tuple[str, str], ...], str] = {}

    def __call__(self, key: SweepKey) -> dict[str, str]:
        source, items = key
        colour = self.colours.setdefault(items, f"C{len(self.colours) % 10}")
        linestyle = LINESTYLES[self.labeller.sources.index(source) % len(LINESTYLES)]
        return {"color": colour, "linestyle": linestyle}


def ecdf(times_ms: np.ndarray) -> pd.DataFrame:
    times_ms = np.sort(times_ms)
    count = len(times_ms)
    return pd.DataFrame(
        {
            "response_time_ms": times_ms,
            "cumulative_percent": 100 * np.arange(1, count + 1) / count,
            # The share of requests that took this long or longer: from 100 % down to one
            # request, so that the log axis shows the slowest too.
            "percent_at_least": 100 * np.arange(count, 0, -1) / count,
        }
    )


def legend(ax: Axes, **options: Any) -> None:  # noqa: ANN401 (matplotlib's options)
    """A legend whose long labels (a swept AQM with all its parameters) are wrapped, so
    that they do not squeeze the axes to nothing."""
    handles, labels = ax.get_legend_handles_labels()
    wrapped = [textwrap.fill(label, LEGEND_WIDTH_CHARS) for label in labels]
    ax.legend(handles, wrapped, fontsize="small", **options)


def _repetition_curves(ax: Axes, parts: list[pd.Series], y: str, style: dict[str, Any]) -> None:
    """Each repetition's curve, thin and faint under the pooled one, where there are
    several."""
    if len(parts) < 2:
        return
    for part in parts:
        curve = ecdf(part.to_numpy(dtype=np.float64))
        thin = {**style, "linewidth": 0.7, "alpha": 0.35}
        ax.plot(curve["response_time_ms"], curve[y], drawstyle="steps-post", **thin)


def response_times(datas: list[PointData], labeller: Labeller, out: Path) -> list[FigureFile]:
    """The CDF of response times (log x, cumulative %) and the complementary CDF (log-log),
    a curve per configuration with its repetitions pooled, a panel per web load."""
    pooled: dict[tuple[Load, SweepKey], list[pd.Series]] = {}
    for data in datas:
        ok = data.web.loc[data.web["outcome"] == "ok", "response_time_ms"]
        if len(ok):
            key = (data.point.load_percent, configuration_key(data.point))
            pooled.setdefault(key, []).append(ok)
    if not pooled:
        return []
    curves = {
        (load, key): ecdf(pd.concat(parts).to_numpy(dtype=np.float64)).assign(
            results=key[0], configuration=labeller.label(key), load_percent=load
        )
        for (load, key), parts in pooled.items()
    }
    data = pd.concat(curves.values(), ignore_index=True)
    loads = _loads([load for load, _ in curves])
    files = []
    for stem, y, ylabel, title, caption in (
        (
            "response-time-cdf",
            "cumulative_percent",
            "cumulative %",
            "Response times (CDF)",
            "log x",
        ),
        (
            "response-time-ccdf",
            "percent_at_least",
            "% of requests taking ≥ x",
            "Response-time tail (complementary CDF)",
            "log-log: the share of requests that took at least x",
        ),
    ):
        figure, axes = panels(len(loads))
        styles = _Styles(labeller)
        for ax, load in zip(axes, loads, strict=True):
            for (curve_load, key), curve in curves.items():
                if curve_load != load:
                    continue
                style = styles(key)
                ax.plot(
                    curve["response_time_ms"],
                    curve[y],
                    drawstyle="steps-post",
                    label=labeller.label(key),
                    **style,
                )
                _repetition_curves(ax, pooled[load, key], y, style)
            ax.set_xscale("log")
            ax.set_title(panel_title(load))
            ax.set_xlabel("response time (ms)")
            ax.set_ylabel(ylabel)
            ax.grid(True, which="both", alpha=0.3)
            # Where the curves are not: a CDF starts low on the left, a tail ends low.
            legend(ax, loc="upper left" if y == "cumulative_percent" else "lower left")
        if y == "percent_at_least":
            axes[0].set_yscale("log")
        else:
            axes[0].set_ylim(0, 100)
        columns = ["results", "configuration", "load_percent", "response_time_ms", y]
        caption = (
            f"Web requests started inside the measurement window that completed (ok); {caption};"
            " a curve per configuration (repetitions pooled), thin curves each repetition's"
            " (their spread is the runs' noise), a panel per web load."
        )
        files.append(save(figure, data[columns], out, stem, title, caption))
    return files


LARGE_REPLY_BYTES = 10_000  # "transfers over 10 KB" (Scharf), 1 KB = 1000 bytes


def response_time_by_rtt(
    datas: list[PointData], labeller: Labeller, out: Path
) -> FigureFile | None:
    """The median response time against the client-server pair's base RTT, for all
    replies (circles) and replies over 10 KB (triangles), a curve per configuration with
    its repetitions pooled, a panel per web load; None with fewer than two RTTs."""
    pooled: dict[tuple[Load, SweepKey], list[pd.DataFrame]] = {}
    for data in datas:
        ok = data.web.loc[data.web["outcome"] == "ok"]
        ok = ok[ok["base_rtt_ms"].notna()] if "base_rtt_ms" in ok else ok.iloc[0:0]
        if len(ok):
            key = (data.point.load_percent, configuration_key(data.point))
            pooled.setdefault(key, []).append(ok)
    rows = []
    for (load, key), parts in pooled.items():
        web = pd.concat(parts)
        for replies, subset in (
            ("all", web),
            (f"> {LARGE_REPLY_BYTES // 1000} KB", web[web["reply_bytes"] > LARGE_REPLY_BYTES]),
        ):
            for rtt, group in subset.groupby("base_rtt_ms"):
                rows.append(
                    {
                        "results": key[0],
                        "configuration": labeller.label(key),
                        "load_percent": load,
                        "replies": replies,
                        "base_rtt_ms": rtt,
                        "requests": len(group),
                        "median_response_time_ms": float(group["response_time_ms"].median()),
                        "key": key,
                    }
                )
    table = pd.DataFrame(rows)
    if table.empty or table["base_rtt_ms"].nunique() < 2:
        return None
    loads = _loads(list({load for load, _ in pooled}))
    figure, axes = panels(len(loads))
    styles = _Styles(labeller)
    for ax, load in zip(axes, loads, strict=True):
        here = table[table["load_percent"].map(lambda x, load=load: x == load)]
        for (key, replies), curve in here.groupby(["key", "replies"], sort=False):
            marker = "o" if replies == "all" else "^"
            ax.plot(
                curve["base_rtt_ms"],
                curve["median_response_time_ms"],
                marker=marker,
                label=f"{labeller.label(key)}, {replies}",
                **styles(key),
            )
        ax.set_title(panel_title(load))
        ax.set_xlabel("base RTT of the client-server pair (ms)")
        ax.set_ylabel("median response time (ms)")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        legend(ax, loc="upper left")
    caption = (
        "Web requests started inside the measurement window that completed (ok), grouped by"
        " the base round-trip time of their client and server (link delays, no queueing):"
        " the median response time of all replies (circles) and of replies over 10 KB"
        " (triangles); repetitions pooled, a panel per web load."
    )
    data = table.drop(columns="key")
    return save(
        figure, data, out, "response-time-by-rtt", "Response time by round-trip time", caption
    )


def queue_histogram(datas: list[PointData], labeller: Labeller, out: Path) -> FigureFile | None:
    """The share of monitor samples at each queue length, a curve per configuration and
    queue with its repetitions pooled, a panel per web load."""
    pooled: dict[tuple[Load, SweepKey, str], list[pd.Series]] = {}
    for data in datas:
        for queue in data.queues:
            key = (data.point.load_percent, configuration_key(data.point), queue.name)
            pooled.setdefault(key, []).append(queue.samples[depth_column(queue.samples)])
    pooled = {key: parts for key, parts in pooled.items() if sum(map(len, parts))}
    if not pooled:
        return None
    largest = max(float(pd.concat(parts).max()) for parts in pooled.values())
    # About 60 bars whatever the largest queue: one packet wide for short queues.
    width = max(1, math.ceil(largest / 60))
    edges = np.arange(0, largest + width + 1, width)
    several_queues = len({name for _, _, name in pooled}) > 1
    rows = []
    for (load, key, name), parts in pooled.items():
        counts, _ = np.histogram(pd.concat(parts).to_numpy(), bins=edges)
        label = labeller.label(key) + (f" ({name})" if several_queues else "")
        rows.append(
            pd.DataFrame(
                {
                    "results": key[0],
                    "configuration": label,
                    "load_percent": load,
                    "queue": name,
                    "depth_from_pkts": edges[:-1],
                    "depth_to_pkts": edges[1:],
                    "percent_of_samples": 100 * counts / counts.sum(),
                }
            )
        )
    data = pd.concat(rows, ignore_index=True)
    loads = _loads([load for load, _, _ in pooled])
    figure, axes = panels(len(loads))
    styles = _Styles(labeller)
    for ax, load in zip(axes, loads, strict=True):
        for (curve_load, key, _), curve in zip(pooled, rows, strict=True):
            if curve_load == load:
                ax.stairs(
                    curve["percent_of_samples"],
                    edges,
                    label=curve["configuration"].iloc[0],
                    **styles(key),
                )
        ax.set_title(panel_title(load))
        ax.set_xlabel("queue length (pkts)")
        ax.set_ylabel("% of samples")
        ax.grid(True, alpha=0.3)
        legend(ax)
    return save(
        figure,
        data,
        out,
        "queue-histogram",
        "Queue length",
        f"Monitor samples inside the measurement window, in bins of {width} packet(s);"
        " a curve per configuration and queue (repetitions pooled), a panel per web load.",
    )


def drops_by_cause(drops: pd.DataFrame, labeller: Labeller, out: Path) -> FigureFile | None:
    """Per point and queue: the share of offered packets dropped, by cause, and marked."""
    drops = drops[drops["offered_pkts"] > 0] if len(drops) else drops
    if not len(drops):
        return None
    causes = [c for c in drops.columns if c.endswith("_drops_pkts")]
    marks = [c for c in drops.columns if c.endswith("marks_pkts")]
    bars = [
        textwrap.fill(
            (f"{r.results}: {r.point}" if len(labeller.sources) > 1 else r.point) + f" ({r.queue})",
            LEGEND_WIDTH_CHARS,
        )
        for r in drops.itertuples()
    ]
    long = drops.melt(
        id_vars=["results", "point", "queue", "direction", "offered_pkts"],
        value_vars=causes + marks,
        var_name="cause",
        value_name="packets",
    )
    long["cause"] = long["cause"].str.removesuffix("_pkts")
    long["percent_of_offered"] = 100 * long["packets"] / long["offered_pkts"]
    lines = sum(bar.count("\n") + 1 for bar in bars)
    figure = Figure(figsize=(9, 0.3 * lines + 0.2 * len(bars) + 1.6), layout="constrained")
    ax_drops, ax_marks = figure.subplots(1, 2, sharey=True, width_ratios=[3, 1])
    positions = np.arange(len(bars))
    left = np.zeros(len(bars))
    for cause in causes:
        share = (100 * drops[cause] / drops["offered_pkts"]).fillna(0).to_numpy()
        ax_drops.barh(positions, share, left=left, label=cause.removesuffix("_pkts"))
        left += share
    for i, column in enumerate(marks):
        share = (100 * drops[column] / drops["offered_pkts"]).fillna(0).to_numpy()
        height = 0.8 / len(marks)
        offset = -0.4 + (i + 0.5) * height
        ax_marks.barh(
            positions + offset,
            share,
            height=height,
            label=column.removesuffix("_pkts"),
            color=f"C{(len(causes) + i) % 10}",  # not the colour of a drop cause
        )
    ax_drops.set_yticks(positions, bars)
    ax_drops.invert_yaxis()
    ax_drops.set_xlabel("dropped (% of offered)")
    ax_marks.set_xlabel("marked (% of offered)")
    for ax in (ax_drops, ax_marks):
        ax.set_xlim(left=0)
        ax.grid(True, axis="x", alpha=0.3)
    # Outside the axes: a legend inside would hide the longest bars.
    figure.legend(loc="outside upper center", ncols=len(causes) + len(marks), fontsize="small")
    return save(
        figure,
        long,
        out,
        "drops-by-cause",
        "Drops and marks by cause",
        "Counter deltas of the queue monitor summed over the measurement window, as a share"
        " of the packets offered to the queue (enqueued + dropped).",
    )


def along_axis(table: pd.DataFrame, axis: str, labeller: Labeller, out: Path) -> FigureFile:
    """The compared metrics against one sweep axis: a panel per metric, a line per series
    (the other sweep values), the mean over repetitions with its 95 % interval as a bar."""
    metrics = list(dict.fromkeys(table["metric"]))
    figure, axes = panels(len(metrics), width=4.0, height=3.0, sharey=False)
    values = list(dict.fromkeys(table["axis_value"]))
    numeric = is_numeric(values)
    position = {value: i for i, value in enumerate(values)}
    # A series keeps its colour in every panel, also where it has no value.
    colours = {s: f"C{i % 10}" for i, s in enumerate(dict.fromkeys(table["series"]))}
    for ax, metric in zip(axes, metrics, strict=True):
        for series, rows in table[table["metric"] == metric].groupby("series", sort=False):
            rows = rows.sort_values("axis_value") if numeric else rows
            x = rows["axis_value"] if numeric else rows["axis_value"].map(position)
            # The 95 % interval of the mean over the runs; one run has none (no bar).
            low, high = (
                rows["ci95_low"].fillna(rows["mean"]),
                rows["ci95_high"].fillna(rows["mean"]),
            )
            ax.errorbar(
                x,
                rows["mean"],
                yerr=[rows["mean"] - low, high - rows["mean"]],
                color=colours[series],
                marker="o",
                # A line between categories (e.g. disciplines) would suggest an order.
                linestyle="-" if numeric else "none",
                capsize=3,
                label=series,
            )
        if not numeric:
            names = [labeller.aqm_values.get((axis, str(v)), str(v)) for v in values]
            ax.set_xticks(range(len(values)), names, rotation=20)
        # From zero: a cut axis makes 317 against 321 ms look large.
        ax.set_ylim(bottom=min(0.0, float(table.loc[table["metric"] == metric, "min"].min())))
        ax.set_title(METRICS[metric], fontsize="medium")
        ax.grid(True, alpha=0.3)
    figure.supxlabel(labeller.key_name(axis))
    legend = {}  # label -> handle, over every panel
    for ax in axes:
        handles, labels = ax.get_legend_handles_labels()
        legend |= dict(zip(labels, handles, strict=True))
    figure.legend(legend.values(), legend.keys(), loc="outside upper center", ncols=2)
    return save(
        figure,
        table,
        out,
        f"axis-{slug(axis)}",
        f"Along {labeller.key_name(axis)}",
        f"Each metric against {axis}: a line per combination of the other sweep values;"
        " markers are the mean over repetitions, bars its 95 % confidence interval over"
        " the runs (Student t; none for one run); y axes start at zero.",
    )


def utilisation(data: PointData, stem: str, out: Path) -> FigureFile | None:
    """A point's bottleneck utilisation per second, each direction."""
    throughput = data.throughput
    if not len(throughput):
        return None
    figure = Figure(figsize=(8, 3), layout="constrained")
    ax = figure.add_subplot()
    for direction, text in DIRECTION_TEXT.items():
        rows = throughput[throughput["direction"] == direction]
        ax.plot(rows["t_s"], rows["utilisation"], marker=".", label=text)
    ax.set_ylim(0, max(1.05, float(throughput["utilisation"].max()) * 1.05))
    ax.set_xlabel("time since the window's start (s)")
    ax.set_ylabel("utilisation")
    ax.grid(True, alpha=0.3)
    legend(ax)
    return save(
        figure,
        throughput[["t_s", "direction", "bps", "utilisation"]],
        out,
        f"{stem}-utilisation",
        "Bottleneck utilisation",
        "Bits received over the bottleneck link each second / its rate, per direction"
        " (throughput.csv's measured seconds).",
    )


def queue_over_time(data: PointData, stem: str, out: Path) -> FigureFile | None:
    """A point's queue length and AQM average over the window, a panel per queue."""
    queues = [q for q in data.queues if len(q.samples)]
    if not queues:
        return None
    figure = Figure(figsize=(8, 2.8 * len(queues)), layout="constrained")
    axes = figure.subplots(len(queues), 1, squeeze=False, sharex=True).ravel()
    rows = []
    for ax, queue in zip(axes, queues, strict=True):
        samples = queue.samples
        averages = [c for c in samples.columns if c.endswith(Column.AVG_PKTS)]
        columns = [depth_column(samples), *averages]
        rasterized = len(samples) > RASTERIZE_ABOVE
        for column in columns:
            ax.plot(samples["t_s"], samples[column], label=column, rasterized=rasterized)
        ax.set_title(f"{queue.name} ({DIRECTION_TEXT.get(queue.direction, queue.direction)})")
        ax.set_ylabel("packets")
        ax.grid(True, alpha=0.3)
        legend(ax, loc="upper right")
        rows.append(samples[["t_s", *columns]].assign(queue=queue.name))
    axes[-1].set_xlabel("time since the window's start (s)")
    return save(
        figure,
        pd.concat(rows, ignore_index=True),
        out,
        f"{stem}-queue",
        "Queue length and AQM average",
        "The queue monitor's samples inside the measurement window: the queue length"
        " (qdepth_pkts, or the AQM's occupancy_pkts) and, where the AQM keeps one, its"
        " average (avg_pkts).",
    )


def udp_delay(data: PointData, stem: str, out: Path) -> FigureFile | None:
    """A point's UDP one-way delays over the window, per flow."""
    flows = [f for f in data.udp if len(f.packets)]
    if not flows:
        return None
    figure = Figure(figsize=(8, 3), layout="constrained")
    ax = figure.add_subplot()
    rows = []
    for flow in flows:
        packets = flow.packets.assign(flow=flow.name, owd_ms=flow.packets["owd_us"] / 1e3)
        ax.plot(packets["t_s"], packets["owd_ms"], ".", markersize=2, label=flow.name)
        rows.append(packets[["flow", "seq", "t_s", "owd_ms"]])
    ax.set_xlabel("send time since the window's start (s)")
    ax.set_ylabel("one-way delay (ms)")
    ax.grid(True, alpha=0.3)
    legend(ax, markerscale=4)
    return save(
        figure,
        pd.concat(rows, ignore_index=True),
        out,
        f"{stem}-udp-delay",
        "UDP one-way delay",
        "Each received packet sent inside the measurement window (seq counts from the first"
        " packet sent inside it).",
    )
