"""Over time, a column per configuration, as Parris et al. drew CBT against the others and
the Net100 tracer's plots drew the congestion window: the bulk TCP flows' goodput summed
over the flows, and the multimedia UDP flows' one-way delay, each per second of the
measurement window, with the configuration's multimedia loss in its title; and where the
TCP tracer ran, the congestion window of each traced sender of the first run. In the
per-second rows each run is a thin line; the thick one is the mean over the runs
(goodput) or the median of the runs' medians (delay). A row is drawn only where some
point has its data."""

from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from p4aqm.report.figures import FigureFile, save
from p4aqm.report.grouping import Labeller, SweepKey, configuration_key
from p4aqm.report.load import PointData
from p4aqm.report.tcp_state import senders

MULTIMEDIA_PREFIX = "cbr"  # metrics.UDP_KINDS: the marked multimedia flows
PANEL_WIDTH = 3.2
GOODPUT, DELAY = "bulk goodput (Mbit/s)", "multimedia one-way delay (ms)"
CWND = "cwnd, first run (packets)"


def goodput_per_second(data: PointData) -> pd.Series:
    """The bulk flows' receiver goodput summed over the flows (Mbit/s), by the second of
    the window their interval ends in."""
    bulk = data.bulk
    if not len(bulk):
        return pd.Series(dtype=float)
    second = np.ceil(bulk["t_s"]).astype(int)
    return bulk.groupby(second)["bytes"].sum() * 8 / 1e6


def multimedia_packets(data: PointData) -> tuple[pd.DataFrame, int]:
    """The multimedia flows' received packets (t_s, owd_ms) and how many were sent."""
    flows = [f for f in data.udp if f.name.startswith(MULTIMEDIA_PREFIX)]
    sent = sum(f.sent for f in flows)
    frames = [f.packets[["t_s", "owd_us"]] for f in flows if len(f.packets)]
    if not frames:
        return pd.DataFrame(columns=["t_s", "owd_ms"]), sent
    packets = pd.concat(frames, ignore_index=True)
    return packets.assign(owd_ms=packets["owd_us"] / 1e3)[["t_s", "owd_ms"]], sent


def _loss_text(datas: list[PointData]) -> str:
    """The multimedia loss of each run (% of the packets sent inside the window): mean
    [min-max, n]."""
    losses = []
    for data in datas:
        packets, sent = multimedia_packets(data)
        if sent:
            losses.append(100 * (1 - len(packets) / sent))
    if not losses:
        return "no multimedia flows"
    return (
        f"multimedia loss {np.mean(losses):.1f} % "
        f"[{min(losses):.1f}–{max(losses):.1f}, n={len(losses)}]"
    )


def _rows(label: str, datas: list[PointData]) -> list[pd.DataFrame]:
    """Each run's per-second goodput and multimedia delay (its packets' median)."""
    rows = []
    for data in datas:
        goodput = goodput_per_second(data)
        rows.append(
            pd.DataFrame({"series": GOODPUT, "second": goodput.index, "value": goodput}).assign(
                configuration=label, repetition=data.point.repetition
            )
        )
        packets, _ = multimedia_packets(data)
        delay = packets.groupby(np.floor(packets["t_s"]).astype(int))["owd_ms"].median()
        rows.append(
            pd.DataFrame({"series": DELAY, "second": delay.index, "value": delay}).assign(
                configuration=label, repetition=data.point.repetition
            )
        )
    return rows


def _cwnd(label: str, datas: list[PointData]) -> pd.DataFrame:
    """The traced senders' congestion windows in the configuration's first run."""
    traced = [d for d in datas if len(d.tcp)]
    if not traced:
        return pd.DataFrame(columns=["configuration", "flow", "t_s", "snd_cwnd_pkts"])
    first = min(traced, key=lambda d: d.point.repetition)
    flows = senders(first.tcp)
    return flows[["flow", "t_s", "snd_cwnd_pkts"]].assign(
        configuration=label, repetition=first.point.repetition
    )


def _has_data(data: PointData) -> bool:
    return bool(
        len(data.bulk)
        or len(data.tcp)
        or any(f.name.startswith(MULTIMEDIA_PREFIX) for f in data.udp)
    )


def timelines(datas: list[PointData], labeller: Labeller, out: Path) -> FigureFile | None:
    """The figure (figures/timelines), or None when no point has bulk or multimedia flows
    or traced senders."""
    by_key: dict[SweepKey, list[PointData]] = {}
    for data in datas:
        if _has_data(data):
            by_key.setdefault(configuration_key(data.point), []).append(data)
    if not by_key:
        return None
    labels = {key: labeller.label(key) for key in by_key}
    seconds = pd.concat(
        [pd.concat(_rows(labels[k], runs), ignore_index=True) for k, runs in by_key.items()],
        ignore_index=True,
    )
    windows = pd.concat([_cwnd(labels[k], runs) for k, runs in by_key.items()], ignore_index=True)
    series = [s for s in (GOODPUT, DELAY) if (seconds["series"] == s).any()]
    series += [CWND] if len(windows) else []
    figure = Figure(figsize=(PANEL_WIDTH * len(by_key), 2.8 * len(series)), layout="constrained")
    axes = figure.subplots(len(series), len(by_key), squeeze=False, sharex=True, sharey="row")
    for column, (key, runs) in enumerate(by_key.items()):
        label = labels[key]
        for row, name in enumerate(series):
            ax = axes[row][column]
            if name == CWND:
                for _, flow in windows[windows["configuration"] == label].groupby("flow"):
                    ax.plot(flow["t_s"], flow["snd_cwnd_pkts"], linewidth=0.8)
            else:
                values = seconds[(seconds["configuration"] == label) & (seconds["series"] == name)]
                for _, run in values.groupby("repetition"):
                    ax.plot(run["second"], run["value"], color="C0", linewidth=0.7, alpha=0.35)
                overall = values.groupby("second")["value"].agg(
                    "mean" if name == GOODPUT else "median"
                )
                ax.plot(overall.index, overall.to_numpy(), color="C0")
            ax.grid(True, alpha=0.3)
            if column == 0:
                ax.set_ylabel(name)
        title = f"{label}\n{_loss_text(runs)}" if DELAY in series else label
        axes[0][column].set_title(title, fontsize="small")
        axes[-1][column].set_xlabel("time in the window (s)")
    caption = (
        "Per second of the measurement window, a column per configuration:"
        " the bulk TCP flows' receiver goodput summed over the flows (thick: the mean over"
        " the runs); the multimedia UDP flows' one-way delay, each run's median over its"
        " packets sent in that second (thick: the median over the runs); thin lines each"
        " run, and the title gives the multimedia loss, mean [min–max] over the runs."
        " Where the TCP tracer ran, the congestion window of each traced sender (at most"
        " eight) in the configuration's first run, every sample. Rows without data in any"
        " point are left out."
    )
    data = pd.concat([seconds, windows], ignore_index=True)
    return save(
        figure, data, out, "timelines", "Goodput, multimedia delay and cwnd over time", caption
    )
