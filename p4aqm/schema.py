"""The names the switch and its clients share: gNMI paths and the monitor's columns.

Every gNMI path under /p4aqm and every column of a monitor file is spelled here and
nowhere else (tests/test_schema_names.py fails on a copy): the switch's gNMI server
resolves paths with these names, and the controller, the experiment runner and the
benchmarks build them with these functions.

    /p4aqm/ports/port[id=N]/queues/queue[id=Q]/config/{rate-bps,rate-pps,depth-pkts,depth-bytes}
    /p4aqm/ports/port[id=N]/queues/queue[id=Q]/state/{qdepth-pkts,drops}
    /p4aqm/ports/port[id=N]/link/config/{delay-us,rate-bps}
    /p4aqm/ports/port[id=N]/state/counters/{rx-packets,tx-packets,tm-drops,rx-drops,tx-drops}
    /p4aqm/registers/register[name=R][index=I]      a register cell (monitor only)
    /p4aqm/counters/counter[name=C][index=I]        a counter cell (monitor only)
    /p4aqm/monitor/{layout,records,state/overruns,state/missed}   the monitor stream
                                                    (state/... also by Get)
    /p4aqm/emulation/state/{departures,lateness-p50-ns,lateness-p99-ns,
                            lateness-max-ns,lateness-buckets}      the emulation's fidelity

Names follow v1model where it has one: a queue's occupancy is `qdepth` (as
`enq_qdepth`), its capacity `depth` (as BMv2's set_queue_depth), the port is
`egress_port` and the queue `qid`. A counter column says whether it is a total or a
delta per sampling period.
"""

from enum import StrEnum

ROOT = "p4aqm"
MAX_PORT = 511  # v1model ports are bit<9>
MAX_QUEUE = 7  # v1model's priority queues: qid is bit<3> in BMv2


class Group(StrEnum):
    """The containers of gNMI leaves."""

    QUEUE_CONFIG = "queue-config"
    QUEUE_STATE = "queue-state"
    LINK_CONFIG = "link-config"
    PORT_COUNTERS = "port-counters"


class LeafName(StrEnum):
    RATE_BPS = "rate-bps"
    RATE_PPS = "rate-pps"
    DEPTH_PKTS = "depth-pkts"
    DEPTH_BYTES = "depth-bytes"
    QDEPTH_PKTS = "qdepth-pkts"
    DROPS = "drops"
    DELAY_US = "delay-us"
    RX_PACKETS = "rx-packets"
    TX_PACKETS = "tx-packets"
    TM_DROPS = "tm-drops"
    RX_DROPS = "rx-drops"
    TX_DROPS = "tx-drops"
    DEPARTURES = "departures"
    LATENESS_P50_NS = "lateness-p50-ns"
    LATENESS_P99_NS = "lateness-p99-ns"
    LATENESS_MAX_NS = "lateness-max-ns"
    LATENESS_BUCKETS = "lateness-buckets"


# The leaves of each container, as they appear in a path.
LEAVES: dict[Group, tuple[LeafName, ...]] = {
    Group.QUEUE_CONFIG: (
        LeafName.RATE_BPS,
        LeafName.RATE_PPS,
        LeafName.DEPTH_PKTS,
        LeafName.DEPTH_BYTES,
    ),
    Group.QUEUE_STATE: (LeafName.QDEPTH_PKTS, LeafName.DROPS),
    Group.LINK_CONFIG: (LeafName.DELAY_US, LeafName.RATE_BPS),
    Group.PORT_COUNTERS: (
        LeafName.RX_PACKETS,
        LeafName.TX_PACKETS,
        LeafName.TM_DROPS,
        LeafName.RX_DROPS,
        LeafName.TX_DROPS,
    ),
}
WRITABLE = (Group.QUEUE_CONFIG, Group.LINK_CONFIG)
# The path elements between a port and a container's leaves; "queue" takes the queue id.
CONTAINER_ELEMENTS: dict[Group, tuple[str, ...]] = {
    Group.QUEUE_CONFIG: ("queues", "queue", "config"),
    Group.QUEUE_STATE: ("queues", "queue", "state"),
    Group.LINK_CONFIG: ("link", "config"),
    Group.PORT_COUNTERS: ("state", "counters"),
}


def leaf_name(field: str) -> str:
    """The gNMI leaf of a config field: `rate_bps` is `rate-bps`."""
    return field.replace("_", "-")


def field_name(leaf: str) -> str:
    """The config field (and dataplane keyword) of a gNMI leaf: `rate-bps` is `rate_bps`."""
    return leaf.replace("-", "_")


def port_path(port: int | str) -> str:
    return f"/{ROOT}/ports/port[id={port}]"


def container_path(group: Group, port: int | str, queue: int | str | None = None) -> str:
    """A container's path; `queue` None is every queue of the port (`queue[id=*]`). A
    string stands for a number in messages (`port[id=N]`)."""
    parts = []
    for name in CONTAINER_ELEMENTS[group]:
        if name == "queue":
            name += f"[id={'*' if queue is None else queue}]"
        parts.append(name)
    return f"{port_path(port)}/{'/'.join(parts)}"


def leaf_path(group: Group, port: int, leaf: LeafName, queue: int | None = None) -> str:
    if leaf not in LEAVES[group]:
        raise ValueError(f"{group}: no leaf {leaf!r} (leaves: {', '.join(LEAVES[group])})")
    return f"{container_path(group, port, queue)}/{leaf}"


REGISTER_CELL = ("registers", "register")
COUNTER_CELL = ("counters", "counter")


def register_cell_path(name: str, index: int | str) -> str:
    return f"/{ROOT}/{'/'.join(REGISTER_CELL)}[name={name}][index={index}]"


def counter_cell_path(name: str, index: int | str) -> str:
    return f"/{ROOT}/{'/'.join(COUNTER_CELL)}[name={name}][index={index}]"


# The monitor stream's own leaves, under /p4aqm/monitor.
MONITOR = "monitor"
MONITOR_LAYOUT = ("layout",)
MONITOR_RECORDS = ("records",)
MONITOR_OVERRUNS = ("state", "overruns")
MONITOR_MISSED = ("state", "missed")

# The emulation's fidelity, switch-wide (Get only): packets handed to their ports and how
# late (ns past their scheduled departure or landing); the buckets leaf is JSON, the
# [bound_ns, packets] of each non-empty bucket, so two reads subtract into a window's.
EMULATION = "emulation"
EMULATION_STATE = "state"
EMULATION_LEAVES = (
    LeafName.DEPARTURES,
    LeafName.LATENESS_P50_NS,
    LeafName.LATENESS_P99_NS,
    LeafName.LATENESS_MAX_NS,
    LeafName.LATENESS_BUCKETS,
)


def emulation_state_path() -> str:
    return f"/{ROOT}/{EMULATION}/{EMULATION_STATE}"


def monitor_state_path() -> str:
    """The monitor's totals (overruns, missed) since it last started."""
    return f"/{ROOT}/{MONITOR}/{MONITOR_OVERRUNS[0]}"


class Column(StrEnum):
    """The columns of a monitor file (one row per period and AQM port), whichever
    sampler wrote it: the switch's monitor stream or P4Runtime reads (BMv2)."""

    REALTIME_NS = "realtime_ns"  # CLOCK_REALTIME of the sample's instant
    TIME_US = "time_us"  # the switch's clock, that of the P4 timestamps
    ELAPSED_US = "elapsed_us"  # since the sampler's first sample
    PERIOD_INDEX = "period_index"  # sampling periods since the sampler started
    EGRESS_PORT = "egress_port"
    QID = "qid"
    # The traffic manager's queue at the sample.
    QDEPTH_PKTS = "qdepth_pkts"
    QDEPTH_BYTES = "qdepth_bytes"
    # The traffic manager's counts over the period before the sample.
    ARRIVALS_DELTA = "arrivals_delta"
    DEPARTURES_DELTA = "departures_delta"
    TM_DROPS_DELTA = "tm_drops_delta"
    SOJOURN_MAX_US = "sojourn_max_us"
    SOJOURN_MEAN_US = "sojourn_mean_us"
    # The AQM program's state: registers (values) and counters (deltas per period).
    OCCUPANCY_PKTS = "occupancy_pkts"
    AVG_PKTS = "avg_pkts"
    MAX_P = "max_p"
    ACTIVE_FLOWS = "active_flows"
    # CoDel's: the last dequeued packet's sojourn, its dropping state and drop count.
    SOJOURN_US = "sojourn_us"
    DROPPING = "dropping"
    DROP_COUNT = "drop_count"
    # PIE's: its drop probability and the queueing delay it last saw.
    DROP_PROB = "drop_prob"
    QDELAY_US = "qdelay_us"
    MARKS_DELTA = "marks_delta"
    EARLY_DROPS_DELTA = "early_drops_delta"
    FORCED_DROPS_DELTA = "forced_drops_delta"
    OVERFLOW_DROPS_DELTA = "overflow_drops_delta"
    DROPS_DELTA = "drops_delta"  # CoDel's drops at dequeue
    FLOW_DROPS_DELTA = "flow_drops_delta"
    THRESHOLD_DROPS_DELTA = "threshold_drops_delta"  # CBT's, per class


def class_column(traffic_class: str, column: Column) -> str:
    """A per-class column of a classifying discipline (CBT): `tcp_occupancy_pkts`."""
    return f"{traffic_class}_{column}"


def counter_column(counter: str) -> str:
    """The column of a P4 counter sampled per period: `marks` is `marks_delta`."""
    return f"{counter}_delta"


def counter_of(column: str) -> str:
    """The counter of a delta column, as counter_column's inverse: `marks_delta` is
    `marks`."""
    return column.removesuffix(counter_column(""))


# A monitor file's metadata "counters": how its counter columns count.
COUNTER_DELTAS = "deltas per period"


# The monitor record's per-queue fields (the dataplane's layout, `qN.FIELD`) and the
# column each becomes; the sojourn sum is only the numerator of SOJOURN_MEAN_US.
RECORD_QUEUE_FIELDS: dict[str, Column] = {
    "qdepth_pkts": Column.QDEPTH_PKTS,
    "qdepth_bytes": Column.QDEPTH_BYTES,
    "arrivals": Column.ARRIVALS_DELTA,
    "departures": Column.DEPARTURES_DELTA,
    "tm_drops": Column.TM_DROPS_DELTA,
    "departed_sojourn_max_us": Column.SOJOURN_MAX_US,
}
RECORD_SOJOURN_SUM = "departed_sojourn_sum_us"
RECORD_TIME_FIELDS: dict[str, Column] = {
    "realtime_ns": Column.REALTIME_NS,
    "time_us": Column.TIME_US,
    "period": Column.PERIOD_INDEX,
}

# Monitor files written before the names above (results folders of earlier versions):
# old column -> new. `marks` and the drop counters (CBT's per class: `tcp_marks`) were
# deltas in the monitor's files and totals in the P4Runtime sampler's, whose files also
# said `t_us` for ELAPSED_US; each is now counter_column(name).
LEGACY_COLUMNS: dict[str, str] = {
    "period": Column.PERIOD_INDEX,
    "port": Column.EGRESS_PORT,
    "queue": Column.QID,
    "t_us": Column.ELAPSED_US,
    "depth_pkts": Column.QDEPTH_PKTS,
    "depth_bytes": Column.QDEPTH_BYTES,
    "arrivals": Column.ARRIVALS_DELTA,
    "departures": Column.DEPARTURES_DELTA,
    "tm_drops": Column.TM_DROPS_DELTA,
}
LEGACY_COUNTERS = (
    "marks",
    "early_drops",
    "forced_drops",
    "overflow_drops",
    "flow_drops",
    "threshold_drops",
)
# What the P4Runtime sampler's metadata said of its counters before they were deltas.
LEGACY_TOTALS = "totals since the run's first read"
