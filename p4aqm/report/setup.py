"""A study's setup table: every setting its points ran with, read from their manifests,
beside what the paper used and why ours differs.

A row's "ours" is what the manifests record: the hosts' TCP settings as read back from
their namespaces, the queues and links of the topology, the traffic and the run's
durations. Every recorded host knob and topology field becomes a row, known or not, so a
setting cannot ride along unseen. "paper" and "differs" come from the experiment file's
`paper:` section, keyed by the row's `setting`; a row without one says so.
"""

from collections.abc import Callable, Iterable
from typing import Any

import pandas as pd

from p4aqm.report.load import Point
from p4aqm.topology.dumbbell import DROPTAIL_DEPTH_PKTS

# Per-host fields of the manifest that say who a host is, not how its TCP behaves.
HOST_IDENTITY = frozenset(
    {"ip", "mac", "router_port", "side", "interface", "routes", "neighbours", "sysctl"}
)
# sysctls the manifest also records under a field of its own (that row stands for both).
SYSCTL_AS_FIELD = {
    "net.ipv4.tcp_congestion_control": "congestion_control",
    "net.ipv4.tcp_sack": "sack",
    "net.ipv4.tcp_ecn": "ecn",
    "net.ipv6.conf.all.disable_ipv6": "ipv6_disabled",
    "net.ipv6.conf.default.disable_ipv6": "ipv6_disabled",
}
HOST_LABELS = {
    "congestion_control": "congestion control",
    "sack": "SACK",
    "ecn": "ECN (net.ipv4.tcp_ecn: 0 off, 1 on, 2 accept only)",
    "initcwnd": "initial window (segments, on the routes)",
    "rto_min_ms": "least retransmission timeout (ms, on the routes; none: Linux's 200)",
    "mtu_bytes": "MTU (bytes); MSS is 40 less",
    "offloads": "NIC offloads",
    "ipv6_disabled": "IPv6 disabled",
    "one_way_delay_us": "one-way delay of the host's access link (µs)",
    "net.ipv4.tcp_rmem": "receive buffer, tcp_rmem min default max (bytes)",
    "net.ipv4.tcp_wmem": "send buffer, tcp_wmem min default max (bytes)",
}
# Topology fields that name files and processes of the run, not the network.
TOPOLOGY_INTERNAL = frozenset(
    {"name_prefix", "run_dir", "build_dir", "host_tcp", "host_tcp_by_name", "program"}
)
TOPOLOGY_LABELS = {
    "bottleneck_rate_bps": "bottleneck rate (bit/s)",
    "access_rate_bps": "access link rate (bit/s)",
    "bottleneck_delay_us": "bottleneck one-way delay (µs)",
    "left_delays_us": "client access one-way delays (µs)",
    "right_delays_us": "server access one-way delays (µs)",
    "delay_layout": "delay layout",
    "right_to_left_aqm": "queue server -> client (the reported one)",
    "left_to_right_aqm": "queue client -> server",
    "same_aqm_both_ways": "client -> server queue runs the server -> client queue's AQM",
    "right_to_left_depth_pkts": "server -> client queue depth without an AQM (pkts)",
    "left_to_right_depth_pkts": "client -> server queue depth without an AQM (pkts)",
    "switch": "switch",
    "router_realtime_priority": "routers' scheduling priority (SCHED_FIFO)",
    "routers_cpu": "CPU both routers are held to (auto: one, up to 40 Mbit/s at the bottleneck)",
    "cpu_latency_us": "longest wake-up of an idle CPU while a point runs (µs; 0: idle CPUs poll)",
    "bmv2_packet_bytes": "queue accounting unit (bytes)",
}
# The calibration file is where the users come from, not a setting of the traffic.
WEB_NOT_SETTINGS = frozenset({"calibration"})
WEB_LABELS = {
    "users": "web users (given, or from the calibration at the load)",
    "load_percent": "web load (% of load_rate_bps, else of the bottleneck's rate)",
    "load_rate_bps": "the rate the load is a share of (bit/s)",
    "params": "web users' model",
    "two_way": "web traffic both ways (users and servers on both sides)",
}
HEADERS = {
    "setting": "setting",
    "label": "what",
    "ours": "ours (from the manifests)",
    "paper": "paper",
    "differs": "why ours differs",
}
NOT_STATED = "(not in the study file's paper: section)"


def _text(value: Any) -> str:  # noqa: ANN401 - any manifest value
    if value is None:
        return "none (the default)"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, dict):
        if value and all(isinstance(v, bool) for v in value.values()):
            on = [k for k, v in value.items() if v]
            return "all off" if not on else "on: " + ", ".join(on)
        return ", ".join(f"{k} {_text(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_text(v) for v in value) + "]"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _distinct(values: Iterable[str]) -> str:
    """The values over points, each once, in the order first met."""
    return "; ".join(dict.fromkeys(values)) or "n/a"


def _by_host(points: list[Point], read: Callable[[dict[str, Any]], Any]) -> str:
    """A host setting over every host of every point: one value, or which hosts had which."""
    hosts_of: dict[str, list[str]] = {}
    for point in points:
        for name, host in point.manifest.get("hosts", {}).items():
            names = hosts_of.setdefault(_text(read(host)), [])
            if name not in names:
                names.append(name)
    if len(hosts_of) <= 1:
        return next(iter(hosts_of), "n/a")
    return "; ".join(f"{', '.join(names)}: {value}" for value, names in hosts_of.items())


def host_rows(points: list[Point]) -> list[tuple[str, str, str]]:
    """(setting, label, ours) of every TCP knob the hosts' manifests record."""
    fields: dict[str, None] = {}
    sysctls: dict[str, None] = {}
    for point in points:
        for host in point.manifest.get("hosts", {}).values():
            fields |= dict.fromkeys(k for k in host if k not in HOST_IDENTITY)
            sysctls |= dict.fromkeys(k for k in host.get("sysctl", {}) if k not in SYSCTL_AS_FIELD)
    rows = [
        (f"host.{key}", HOST_LABELS.get(key, key), _by_host(points, lambda h, k=key: h.get(k)))
        for key in fields
    ]
    rows += [
        (
            f"host.{key.rsplit('.', 1)[-1]}",
            HOST_LABELS.get(key, key),
            _by_host(points, lambda h, k=key: h.get("sysctl", {}).get(k)),
        )
        for key in sysctls
    ]
    return rows


def _topology_value(topology: dict[str, Any], key: str) -> str:
    """A topology field as it took effect: an unset queue depth by the rule that set it,
    an AQM by its discipline first."""
    value = topology.get(key)
    if key.endswith("_depth_pkts") and value is None:
        aqm = topology.get(key.replace("_depth_pkts", "_aqm"))
        return f"{DROPTAIL_DEPTH_PKTS} (drop-tail)" if aqm is None else "the AQM's limit_pkts + 64"
    if key.endswith("_aqm") and isinstance(value, dict):
        return _text({"discipline": value.get("discipline"), **value})
    if key.endswith("_aqm") and value is None:
        return "drop-tail (no AQM)"
    return _text(value)


def topology_rows(points: list[Point]) -> list[tuple[str, str, str]]:
    """(setting, label, ours) of every field of the points' topologies but file names."""
    keys: dict[str, None] = {}
    for point in points:
        topology = point.manifest.get("topology", {})
        keys |= dict.fromkeys(k for k in topology if k not in TOPOLOGY_INTERNAL)
    return [
        (
            f"topology.{key}",
            TOPOLOGY_LABELS.get(key, key),
            _distinct(_topology_value(p.manifest.get("topology", {}), key) for p in points),
        )
        for key in keys
    ]


def _flows(flows: list[dict[str, Any]]) -> str:
    return ", ".join(
        f"{f['client']}-{f['server']} "
        + " ".join(f"{k} {_text(v)}" for k, v in f.items() if k not in ("client", "server"))
        for f in flows
    )


def traffic_rows(points: list[Point]) -> list[tuple[str, str, str]]:
    """(setting, label, ours) of the traffic: web load, users and model, UDP, bulk TCP."""

    def traffic(p: Point) -> dict[str, Any]:
        return p.manifest.get("experiment", {}).get("traffic") or {}

    def web(p: Point) -> dict[str, Any]:
        return traffic(p).get("web") or {}

    rows = []
    keys = dict.fromkeys(k for p in points for k in web(p) if k not in WEB_NOT_SETTINGS)
    for key in keys:
        if key == "users":
            values = (_text(p.manifest.get("web_users")) for p in points)
        else:
            values = (_text(web(p).get(key)) for p in points)
        rows.append((f"traffic.web.{key}", WEB_LABELS.get(key, key), _distinct(values)))
    for kind, label in (
        ("cbr", "paced UDP (multimedia)"),
        ("blast", "UDP blast"),
        ("bulk", "bulk TCP"),
    ):
        if any(traffic(p).get(kind) for p in points):
            rows.append(
                (
                    f"traffic.{kind}",
                    label,
                    _distinct(_flows(traffic(p).get(kind) or []) for p in points),
                )
            )
    return rows


def run_rows(points: list[Point]) -> list[tuple[str, str, str]]:
    """(setting, label, ours) of the run: durations, sampling, repetitions."""

    def field(p: Point, key: str) -> Any:  # noqa: ANN401 - a YAML scalar
        return p.manifest.get("experiment", {}).get(key)

    rows = [
        (
            "run.duration_s",
            "measured duration (s)",
            _distinct(_text(field(p, "duration_s")) for p in points),
        ),
        (
            "run.warmup_s",
            "warm-up before it (s)",
            _distinct(_text(field(p, "warmup_s")) for p in points),
        ),
        (
            "run.sample_period_ms",
            "queue sampled every (ms)",
            _distinct(_text(field(p, "sample_period_ms")) for p in points),
        ),
        (
            "run.repetitions",
            "repetitions per point",
            _distinct(_text(field(p, "repetitions")) for p in points),
        ),
    ]
    if any(field(p, "tcp_trace") for p in points):
        rows.append(
            (
                "run.tcp_trace",
                "TCP connections traced (p4aqm/traffic/tcp_trace.py)",
                _distinct(_trace_text(field(p, "tcp_trace")) for p in points),
            )
        )
    # Tuning rules change host settings per connection: a row wherever a point had them.
    if any(field(p, "tuning") for p in points):
        rows.append(
            (
                "host.tuning",
                "per-connection tuning rules (p4aqm/tuning, first match wins)",
                _distinct(_rules_text(field(p, "tuning")) for p in points),
            )
        )
    return rows


def _trace_text(trace: dict[str, Any] | None) -> str:
    if not trace:
        return "none"
    ports = f", ports {_text(trace['ports'])}" if trace.get("ports") else ""
    return f"{_text(trace['hosts'])} every {_text(trace['period_ms'])} ms{ports}"


def _rules_text(tuning: dict[str, Any] | None) -> str:
    if not tuning:
        return "none"

    def given(values: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in values.items() if v is not None}

    return ", ".join(
        f"{rule['name']}: {_text(given(rule.get('match') or {}))} -> {_text(given(rule['set']))}"
        for rule in tuning["rules"]
    )


def setup_table(points: list[Point], paper: dict[str, dict[str, str | None]]) -> pd.DataFrame:
    """The setup table of `points`, with `paper` (setting -> {value, differs}) beside."""
    ran = [p for p in points if p.manifest.get("hosts")]
    rows = host_rows(ran) + topology_rows(ran) + traffic_rows(ran) + run_rows(ran)
    return pd.DataFrame(
        [
            {
                "setting": setting,
                "label": label,
                "ours": ours,
                "paper": (paper.get(setting) or {}).get("value") or NOT_STATED,
                "differs": (paper.get(setting) or {}).get("differs") or "",
            }
            for setting, label, ours in rows
        ],
        columns=list(HEADERS),
    )


def unstated(table: pd.DataFrame) -> list[str]:
    """The settings the study file's paper: section says nothing of."""
    return table.loc[table["paper"] == NOT_STATED, "setting"].tolist()


def as_markdown(table: pd.DataFrame) -> str:
    """The table as the README shows it."""
    lines = ["| " + " | ".join(HEADERS[c] for c in HEADERS if c != "setting") + " |"]
    lines.append("|" + "---|" * (len(HEADERS) - 1))
    for row in table.itertuples(index=False):
        cells = [row.label, row.ours, row.paper, row.differs]
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return "\n".join(lines) + "\n"
