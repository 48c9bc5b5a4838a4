"""The report's numbers, from the windowed frames of load.py; DEFINITIONS says how each
is defined, and the report shows it."""

import math

import numpy as np
import pandas as pd

from p4aqm.report.grouping import Labeller, SweepKey, sweep_key, table_value, value_text
from p4aqm.report.intervals import mean_interval
from p4aqm.report.load import PointData, Queue
from p4aqm.schema import Column, counter_column, counter_of
from p4aqm.traffic.cbr import summarize

DIRECTIONS = ("server_to_client", "client_to_server")
DIRECTION_TEXT = {"server_to_client": "server→client", "client_to_server": "client→server"}
# Reply sizes in bytes (1 KB = 1000 bytes): (column suffix, header text, above, up to).
SIZE_CLASSES = (
    ("le_10KB", "≤ 10 KB", 0, 10_000),
    ("10_100KB", "10–100 KB", 10_000, 100_000),
    ("gt_100KB", "> 100 KB", 100_000, math.inf),
)

DEFINITIONS = {
    "Measurement window": "Only what happened inside each point's manifest window"
    " [start_ns, end_ns] counts; the warm-up before it does not: web requests by their start,"
    " UDP packets by their send time, throughput seconds marked measured, monitor samples by"
    " when they were taken. Times on the figures count from the window's start.",
    "Utilisation": "Per direction, the mean over the measured seconds of throughput.csv's"
    " utilisation: the bits received over the bottleneck link in that second / its rate.",
    "Loss and marks": "From the bottleneck queue's monitor, its counter deltas summed over"
    " the window. The monitor's arrivals (arrivals_delta) count only the packets enqueued;"
    " a packet the AQM drops (early_drops_delta, forced_drops_delta, ...) or the traffic"
    " manager drops for a full queue (tm_drops_delta) is not among them. So offered ="
    " enqueued + dropped, every packet that reached the queue; loss = dropped / offered and"
    " mark rate = marked / offered (a marked packet is enqueued). A direction without a"
    " monitor (no AQM) has no loss figure: n/a.",
    "Mean queue": "The mean of the monitor's queue length samples (qdepth_pkts; occupancy_pkts"
    " on a switch without the monitor) in the window.",
    "Web requests": "Those started inside the window. ok: the whole reply arrived;"
    " unfinished: still running when the run ended (outcome cancelled); failed: any other"
    " outcome (short, refused, reset, timeout, error). Response times (from the connect to the"
    " reply's last byte) are of the ok requests; transfer times by reply size are their"
    " medians per class (1 KB = 1000 bytes).",
    "UDP": "Per flow, the packets sent inside the window (a lost packet's send time is"
    " interpolated between its neighbours'): loss, one-way delay (owd_us) and RFC 3550"
    " jitter as traffic.cbr.summarize gives them. The summary's UDP loss is over all flows,"
    " its one-way delay the mean over every packet received, its jitter the flows' mean.",
    "Bulk TCP": "The goodput of the bulk flows together (traffic.bulk's receiving ends):"
    " the bytes read in their intervals (0.5 s, counted from the run's epoch) that end"
    " inside the window, over the window's length. Retransmits: the sending ends' segments"
    " retransmitted (tcp_info's total_retrans) over those intervals. Unconnected flows:"
    " those that never connected in the run (their handshakes refused or timed out every"
    " time); they count with 0 bytes, and the report's warnings list each.",
    "Congestion events": "From the TCP tracer (tcp_trace:), per traced connection, each time"
    " its congestion state (tcp_info's ca_state) enters CWR, Recovery or Loss from Open or"
    " Disorder, and each time it enters Loss (a timeout) from CWR or Recovery: Web100's"
    " CongestionSignals, as the Net100 tracer counted them. Summed over the connections;"
    " n/a for a point without the tracer. A state shorter than the tracer's period can be"
    " missed: the period is in the setup table.",
    "Repetitions": "Points that differ only in their repetition: response-time curves and"
    " histograms pool them; comparisons show their mean with min-max bars; the repetitions"
    " table gives mean, std, min and max.",
}

# The summary's metric columns and their headers, in table order.
UDP_KINDS = {"cbr": "multimedia UDP", "blast": "UDP blast"}
METRICS: dict[str, str] = {
    **{f"utilisation_{d}": f"utilisation {t}" for d, t in DIRECTION_TEXT.items()},
    **{f"loss_percent_{d}": f"loss {t} (%)" for d, t in DIRECTION_TEXT.items()},
    **{f"mean_queue_pkts_{d}": f"mean queue {t} (pkts)" for d, t in DIRECTION_TEXT.items()},
    "requests_ok": "requests ok",
    "requests_failed": "requests failed",
    "requests_unfinished": "requests unfinished",
    "response_time_median_ms": "response time median (ms)",
    "response_time_p90_ms": "response time p90 (ms)",
    "response_time_p99_ms": "response time p99 (ms)",
    **{f"transfer_median_ms_{c}": f"transfer median {t} (ms)" for c, t, _, _ in SIZE_CLASSES},
    # UDP by kind: the multimedia flows (cbr*) and the unresponsive blasts (blast*), whose
    # fates the seed studies compare.
    **{f"{k}_loss_percent": f"{t} loss (%)" for k, t in UDP_KINDS.items()},
    **{f"{k}_owd_mean_ms": f"{t} mean one-way delay (ms)" for k, t in UDP_KINDS.items()},
    **{f"{k}_jitter_ms": f"{t} jitter (ms)" for k, t in UDP_KINDS.items()},
    "bulk_goodput_mbps": "bulk TCP goodput (Mbit/s)",
    "bulk_retransmits": "bulk TCP retransmits (segments)",
    "bulk_flows_unconnected": "bulk TCP flows never connected",
    "congestion_events": "congestion events (traced TCP)",
}
# What the comparisons along a sweep axis plot, where any point has a value.
COMPARED = (
    *(f"utilisation_{d}" for d in DIRECTIONS),
    *(f"loss_percent_{d}" for d in DIRECTIONS),
    *(f"mean_queue_pkts_{d}" for d in DIRECTIONS),
    "response_time_median_ms",
    "response_time_p99_ms",
    *(f"{k}_loss_percent" for k in UDP_KINDS),
    "cbr_owd_mean_ms",
    "bulk_goodput_mbps",
    "bulk_retransmits",
    "congestion_events",
)
# tcp_info's ca_state (include/net/tcp.h's tcp_ca_state): Open 0, Disorder 1, CWR 2,
# Recovery 3, Loss 4.
CA_CWR, CA_LOSS = 2, 4
CONNECTION = ["host", "src", "sport", "dst", "dport"]


# The deltas of every drop counter (the traffic manager's tm_drops_delta, the AQM's
# early_drops_delta, a CBT class's tcp_forced_drops_delta, ...) and of every mark counter.
DROPS_SUFFIX = counter_column("drops")
MARKS_SUFFIX = f"_{Column.MARKS_DELTA}"


def drop_columns(samples: pd.DataFrame) -> list[str]:
    """The monitor's drop counters: the traffic manager's and each the AQM names."""
    return [c for c in samples.columns if c.endswith(DROPS_SUFFIX)]


def mark_columns(samples: pd.DataFrame) -> list[str]:
    return [c for c in samples.columns if c == Column.MARKS_DELTA or c.endswith(MARKS_SUFFIX)]


def depth_column(samples: pd.DataFrame) -> str:
    """The queue length in packets: the traffic manager's depth where the monitor gives it
    (p4aqm switch), else the AQM's occupancy register (a sampled BMv2)."""
    return Column.QDEPTH_PKTS if Column.QDEPTH_PKTS in samples else Column.OCCUPANCY_PKTS


def _total(samples: pd.DataFrame, column: str) -> float:
    return int(samples[column].sum()) if column in samples else math.nan


def queue_counts(queues: list[Queue]) -> dict[str, float]:
    """Packets over the window of the queues (of one direction), by cause, and the rates;
    NaN where a monitor lacks the enqueued count (only the p4aqm switch's monitor has it)."""
    counts: dict[str, float] = {"enqueued_pkts": 0, "departures_pkts": 0}
    drops = marks = 0
    for queue in queues:
        samples = queue.samples
        counts["enqueued_pkts"] += _total(samples, Column.ARRIVALS_DELTA)
        counts["departures_pkts"] += _total(samples, Column.DEPARTURES_DELTA)
        for column in drop_columns(samples) + mark_columns(samples):
            # By cause, as the counter is named: tm_drops_pkts, marks_pkts, ...
            cause = f"{counter_of(column)}_pkts"
            counts[cause] = counts.get(cause, 0) + _total(samples, column)
        drops += sum(_total(samples, c) for c in drop_columns(samples))
        marks += sum(_total(samples, c) for c in mark_columns(samples))
    offered = counts["enqueued_pkts"] + drops
    counts |= {
        "dropped_pkts": drops,
        "marked_pkts": marks,
        "offered_pkts": offered,
        "loss_percent": 100 * drops / offered if offered else math.nan,
        "mark_percent": 100 * marks / offered if offered else math.nan,
    }
    return counts


def drops_table(datas: list[PointData]) -> pd.DataFrame:
    """Per point and monitored queue: packets offered, enqueued, dropped by cause, marked."""
    rows = [
        {
            "results": data.point.source,
            "point": data.point.name,
            "queue": queue.name,
            "direction": queue.direction,
            **queue_counts([queue]),
        }
        for data in datas
        for queue in data.queues
    ]
    return pd.DataFrame(rows)


def udp_table(data: PointData) -> pd.DataFrame:
    """Per UDP flow of a point: loss, one-way delay and jitter (ms) inside the window."""
    rows = []
    for flow in data.udp:
        stats = summarize(flow.packets, {flow.flow_id: flow.sent}).iloc[0]
        rows.append(
            {
                "flow": flow.name,
                "sent": int(stats["expected"]),
                "received": int(stats["received"]),
                "lost": int(stats["lost"]),
                "loss_percent": 100 * stats["loss_fraction"],
                "duplicates": int(stats["duplicates"]),
                **{
                    f"owd_{s}_ms": stats[f"owd_{s}_us"] / 1e3 for s in ("mean", "p50", "p99", "max")
                },
                "jitter_ms": stats["jitter_us"] / 1e3,
            }
        )
    return pd.DataFrame(rows)


def _percentile(values: pd.Series, q: float) -> float:
    return float(np.percentile(values, q)) if len(values) else math.nan


def summary_row(data: PointData) -> dict[str, float]:
    """The metrics (METRICS' columns) of one point."""
    row: dict[str, float] = {}
    throughput = data.throughput
    for direction in DIRECTIONS:
        utilisation = throughput.loc[throughput["direction"] == direction, "utilisation"]
        row[f"utilisation_{direction}"] = utilisation.mean() if len(utilisation) else math.nan
    for direction in DIRECTIONS:
        queues = [q for q in data.queues if q.direction == direction]
        row[f"loss_percent_{direction}"] = (
            queue_counts(queues)["loss_percent"] if queues else math.nan
        )
    for direction in DIRECTIONS:
        depths = [
            q.samples[depth_column(q.samples)] for q in data.queues if q.direction == direction
        ]
        depth = pd.concat(depths) if depths else pd.Series(dtype=float)
        row[f"mean_queue_pkts_{direction}"] = depth.mean() if len(depth) else math.nan

    web = data.web
    ok = web[web["outcome"] == "ok"]
    row["requests_ok"] = len(ok)
    row["requests_unfinished"] = int((web["outcome"] == "cancelled").sum())
    row["requests_failed"] = len(web) - len(ok) - row["requests_unfinished"]
    for q, name in ((50, "median"), (90, "p90"), (99, "p99")):
        row[f"response_time_{name}_ms"] = _percentile(ok["response_time_ms"], q)
    for column, _, above, up_to in SIZE_CLASSES:
        sized = ok[(ok["reply_bytes"] > above) & (ok["reply_bytes"] <= up_to)]
        row[f"transfer_median_ms_{column}"] = _percentile(sized["response_time_ms"], 50)

    table = udp_table(data)
    for kind in UDP_KINDS:
        udp = table[table["flow"].str.startswith(kind)] if len(table) else table
        sent = udp["sent"].sum() if len(udp) else 0
        row[f"{kind}_loss_percent"] = 100 * udp["lost"].sum() / sent if sent else math.nan
        received = udp["received"].sum() if len(udp) else 0
        row[f"{kind}_owd_mean_ms"] = (
            float((udp["owd_mean_ms"] * udp["received"]).sum() / received) if received else math.nan
        )
        row[f"{kind}_jitter_ms"] = float(udp["jitter_ms"].mean()) if len(udp) else math.nan
    start_ns, end_ns = data.point.window
    row["bulk_goodput_mbps"] = (
        8 * data.bulk["bytes"].sum() / ((end_ns - start_ns) / 1e9) / 1e6
        if len(data.bulk)
        else math.nan
    )
    row["bulk_retransmits"] = (
        float(data.bulk["retransmits"].sum())
        if "retransmits" in data.bulk and data.bulk["retransmits"].notna().any()
        else math.nan
    )
    row["bulk_flows_unconnected"] = (
        float(len(data.bulk_unconnected)) if len(data.bulk) else math.nan
    )
    row["congestion_events"] = congestion_events(data.tcp)
    return {column: row[column] for column in METRICS}


def congestion_events(tcp: pd.DataFrame) -> float:
    """The congestion events of the traced connections (DEFINITIONS' "Congestion events"),
    NaN without a trace."""
    if not len(tcp):
        return math.nan
    events = 0
    for _, connection in tcp.sort_values(Column.REALTIME_NS).groupby(CONNECTION, sort=False):
        state = connection["ca_state"].to_numpy()
        before, after = state[:-1], state[1:]
        reduced = (before < CA_CWR) & (after >= CA_CWR)
        timed_out = (before >= CA_CWR) & (before < CA_LOSS) & (after == CA_LOSS)
        events += int(reduced.sum() + timed_out.sum())
    return float(events)


def summary_table(datas: list[PointData]) -> pd.DataFrame:
    """One row per point: results folder, point, repetition, sweep values, web users, then
    the metrics."""
    sweep_columns = list(dict.fromkeys(k for data in datas for k in data.point.sweep))
    rows = []
    for data in datas:
        point = data.point
        sweep = {
            k: table_value(point.sweep[k]) if k in point.sweep else None for k in sweep_columns
        }
        rows.append(
            {
                "results": point.source,
                "point": point.name,
                "repetition": point.repetition,
                **sweep,
                "web_users": point.manifest.get("web_users"),
                **summary_row(data),
            }
        )
    columns = ["results", "point", "repetition", *sweep_columns, "web_users", *METRICS]
    return pd.DataFrame(rows, columns=columns)


def _ci95_low(values: pd.Series) -> float:
    return mean_interval(values.dropna().to_list()).low


def _ci95_high(values: pd.Series) -> float:
    return mean_interval(values.dropna().to_list()).high


def _spread(frame: pd.DataFrame, group_columns: list[str], metrics: list[str]) -> pd.DataFrame:
    """Mean, its 95 % confidence interval over the runs (Student t: p4aqm/report/
    intervals.py; NaN for one run), std, min and max of each metric over the rows of each
    group, in long form (group by group), leaving out the metrics a group has no value of."""
    stats = frame.groupby(group_columns, sort=False)[metrics].agg(
        ["count", "mean", _ci95_low, _ci95_high, "std", "min", "max"]
    )
    spread = stats.stack(level=0).rename_axis([*group_columns, "metric"]).reset_index()
    spread = spread.rename(
        columns={"count": "repetitions", "_ci95_low": "ci95_low", "_ci95_high": "ci95_high"}
    )
    return spread[spread["repetitions"] > 0].reset_index(drop=True)


def repetition_table(
    datas: list[PointData], summary: pd.DataFrame, labeller: Labeller
) -> pd.DataFrame:
    """For each configuration run more than once (points that differ only in their
    repetition): every metric's mean with its 95 % interval, std, min and max over the
    repetitions."""
    keys = [sweep_key(d.point) for d in datas]
    repeated = [keys.count(k) > 1 for k in keys]
    if not any(repeated):
        return pd.DataFrame()
    labels = [labeller.label(k) for k in keys]
    frame = summary.assign(configuration=labels)[repeated]
    return _spread(frame, ["configuration"], list(METRICS))


def sweep_axes(datas: list[PointData]) -> list[str]:
    """The sweep keys that take more than one value among the points."""
    keys = list(dict.fromkeys(k for d in datas for k in d.point.sweep))
    return [
        k
        for k in keys
        if len({value_text(d.point.sweep[k]) for d in datas if k in d.point.sweep}) > 1
    ]


def axis_table(
    datas: list[PointData], summary: pd.DataFrame, labeller: Labeller, axis: str
) -> pd.DataFrame:
    """The COMPARED metrics against one sweep axis: per series (the other sweep values)
    and axis value, mean with its 95 % interval, std, min and max over repetitions."""
    on_axis = [axis in d.point.sweep for d in datas]
    series: list[SweepKey] = [
        sweep_key(d.point, frozenset({axis})) for d, on in zip(datas, on_axis, strict=True) if on
    ]
    frame = summary[on_axis].assign(
        series=[labeller.label(k) for k in series],
        axis_value=[table_value(d.point.sweep[axis]) for d in datas if axis in d.point.sweep],
    )
    metrics = [m for m in COMPARED if frame[m].notna().any()]
    return _spread(frame, ["series", "axis_value"], metrics)
