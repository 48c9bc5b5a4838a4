"""A point's TCP senders seen from inside, beside the bottleneck queue on one time base
(the samples' CLOCK_REALTIME, from the window's start): each traced sender's congestion
window and smoothed RTT from the TCP tracer (p4aqm/traffic/tcp_trace.py), and the queue
monitor's queue length, as TEACUP and flent draw them."""

from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure

from p4aqm.report.figures import RASTERIZE_ABOVE, FigureFile, legend, save
from p4aqm.report.load import PointData
from p4aqm.report.metrics import DIRECTION_TEXT, depth_column

MAX_FLOWS = 8  # the senders that moved the most bytes; more lines would be unreadable
FLOW_KEYS = ["host", "src", "sport", "dst", "dport"]


def senders(tcp: pd.DataFrame) -> pd.DataFrame:
    """The samples of the MAX_FLOWS connections with the most bytes acknowledged, each with
    a flow label. Only senders: connections that had more bytes acknowledged than they
    received (a receiver has only its requests and control messages acknowledged)."""
    sent = tcp.groupby(FLOW_KEYS)[["bytes_acked", "bytes_received"]].max()
    acked = sent["bytes_acked"]
    top = acked[(acked > 0) & (acked > sent["bytes_received"])].nlargest(MAX_FLOWS)
    chosen = tcp.merge(top.rename("flow_bytes_acked").reset_index(), on=FLOW_KEYS)
    flow = (
        chosen["host"] + " " + chosen["src"] + ":" + chosen["sport"].astype(str)
        + " → " + chosen["dst"] + ":" + chosen["dport"].astype(str)
    )  # fmt: skip
    return chosen.assign(flow=flow, srtt_ms=chosen["srtt_us"] / 1e3)


def tcp_over_time(data: PointData, stem: str, out: Path) -> FigureFile | None:
    """The figure (figures/STEM-tcp), or None when no sender was traced in the window."""
    if not len(data.tcp):
        return None
    flows = senders(data.tcp)
    if not len(flows):
        return None
    queues = [q for q in data.queues if len(q.samples)]
    figure = Figure(figsize=(9, 2.6 * (2 + len(queues))), layout="constrained")
    axes = figure.subplots(2 + len(queues), 1, sharex=True).ravel()
    rasterized = len(flows) > RASTERIZE_ABOVE
    for name, flow in flows.groupby("flow", sort=False):
        axes[0].plot(flow["t_s"], flow["snd_cwnd_pkts"], label=name, rasterized=rasterized)
        axes[1].plot(flow["t_s"], flow["srtt_ms"], label=name, rasterized=rasterized)
    axes[0].set_ylabel("cwnd (packets)")
    axes[1].set_ylabel("smoothed RTT (ms)")
    legend(axes[0], loc="upper right")
    for ax, queue in zip(axes[2:], queues, strict=True):
        column = depth_column(queue.samples)
        ax.plot(queue.samples["t_s"], queue.samples[column], color="grey")
        direction = DIRECTION_TEXT.get(queue.direction, queue.direction)
        ax.set_ylabel(f"{queue.name} queue\n({direction}, packets)")
    for ax in axes:
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time since the window's start (s)")
    shown = flows[["flow", "t_s", "snd_cwnd_pkts", "srtt_ms", "bytes_acked", "total_retrans_pkts"]]
    caption = (
        f"The TCP tracer's samples of the {flows['flow'].nunique()} traced connections that"
        f" moved the most data (at most {MAX_FLOWS}): congestion window and smoothed RTT, over"
        " the bottleneck queue's length from the queue monitor, on one clock."
    )
    return save(figure, shown, out, f"{stem}-tcp", "TCP state beside the queue", caption)
