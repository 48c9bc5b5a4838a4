"""The TCP-state figure: the senders that moved the most data, their cwnd and RTT on the
queue's time base, and no figure without traced senders."""

from pathlib import Path

import pandas as pd

from p4aqm.report.load import Point, PointData, Queue
from p4aqm.report.tcp_state import MAX_FLOWS, senders, tcp_over_time


def samples(flows: int, seconds: int = 3) -> pd.DataFrame:
    """flows senders (flow k has k MB acknowledged by its end) and their receivers (which
    received them, and had their 37-byte cookie acknowledged)."""
    rows = []
    for k in range(1, flows + 1):
        for t in range(seconds + 1):
            moved = k * 10**6 * t // seconds
            for sport, dport, acked, received in (
                (40000 + k, 5201, moved, 0),
                (5201, 40000 + k, 37, moved),
            ):
                rows.append(
                    {"host": "c1" if dport == 5201 else "s1", "src": "10.0.0.1", "sport": sport,
                     "dst": "10.0.0.2", "dport": dport, "t_s": float(t), "snd_cwnd_pkts": 10 * k,
                     "srtt_us": 20_000 + t, "bytes_acked": acked, "bytes_received": received,
                     "total_retrans_pkts": 0}
                )  # fmt: skip
    return pd.DataFrame(rows)


def point(tcp: pd.DataFrame) -> PointData:
    manifest = {
        "status": "ok",
        "point": {"name": "p"},
        "sweep": {},
        "window": {"start_ns": 0, "end_ns": 1},
    }
    queue = Queue(
        "r2", "server_to_client", pd.DataFrame({"t_s": [0.0, 1.0], "qdepth_pkts": [3, 5]})
    )
    return PointData(
        Point("r", Path("p"), manifest),
        pd.DataFrame(),
        pd.DataFrame(),
        [queue],
        [],
        pd.DataFrame(),
        tcp,
    )


def test_the_busiest_senders_only() -> None:
    chosen = senders(samples(MAX_FLOWS + 3))
    assert chosen["flow"].nunique() == MAX_FLOWS
    # The receivers had only their cookies acknowledged; the three smallest senders are
    # left out.
    assert set(chosen["sport"]) == {40000 + k for k in range(4, MAX_FLOWS + 4)}
    assert chosen["srtt_ms"].iloc[0] == 20.0


def test_figure_on_the_queues_time_base(tmp_path: Path) -> None:
    drawn = tcp_over_time(point(samples(2)), "p", tmp_path)
    assert drawn is not None
    data = pd.read_csv(tmp_path / "figures" / "p-tcp.csv")
    assert sorted(data["flow"].unique()) == [
        "c1 10.0.0.1:40001 → 10.0.0.2:5201",
        "c1 10.0.0.1:40002 → 10.0.0.2:5201",
    ]
    assert (tmp_path / "figures" / "p-tcp.png").is_file()


def test_no_figure_without_senders(tmp_path: Path) -> None:
    assert tcp_over_time(point(pd.DataFrame()), "p", tmp_path) is None
    receivers_only = samples(2).assign(bytes_acked=0)
    assert tcp_over_time(point(receivers_only), "p", tmp_path) is None
    # Traced at the servers only, as the Parris et al. study traces its bulk receivers.
    servers_only = samples(2).query("host == 's1'")
    assert tcp_over_time(point(servers_only), "p", tmp_path) is None
