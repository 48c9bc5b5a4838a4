"""The timelines figure: per configuration, the bulk flows' goodput summed per second and
the multimedia flows' delay per second, with the multimedia loss over the runs."""

from pathlib import Path

import pandas as pd
import pytest

from p4aqm.report.grouping import Labeller
from p4aqm.report.load import Point, PointData, UdpFlow
from p4aqm.report.timelines import _loss_text, goodput_per_second, timelines


def run(aqm: str, repetition: int, received: int) -> PointData:
    """Two bulk flows of 1 and 2 MB a second for 3 s; one multimedia flow that sent 10
    packets, `received` of them received (delay 10 ms + the repetition's ms), and a blast."""
    manifest = {
        "status": "ok",
        "point": {"name": f"{aqm}_{repetition}", "repetition": repetition},
        "sweep": {"topology.right_to_left_aqm": {"discipline": aqm}},
        "experiment": {"name": "synthetic", "seed": repetition},
        "window": {"start_ns": 0, "end_ns": 3 * 10**9},
    }
    bulk = pd.DataFrame(
        {"flow": [1, 1, 1, 2, 2, 2], "bytes": [1e6] * 3 + [2e6] * 3, "t_s": [1.0, 2.0, 3.0] * 2}
    )
    packets = pd.DataFrame(
        {
            "seq": range(received),
            "t_s": [0.25 * i for i in range(received)],
            "owd_us": [(10 + repetition) * 1e3] * received,
        }
    )
    udp = [UdpFlow("cbr1", 1, packets, 10), UdpFlow("blast1", 2, packets.iloc[:0], 100)]
    point = Point("r", Path(manifest["point"]["name"]), manifest)
    return PointData(point, pd.DataFrame(), pd.DataFrame(), [], udp, bulk)


def test_goodput_and_delay_per_configuration(tmp_path: Path) -> None:
    datas = [run("red", 1, 8), run("red", 2, 6), run("cbt", 1, 10), run("cbt", 2, 10)]
    drawn = timelines(datas, Labeller([d.point for d in datas]), tmp_path)
    assert drawn is not None and drawn.stem == "timelines"
    table = pd.read_csv(tmp_path / "figures" / "timelines.csv")
    goodput = table[table["series"] == "bulk goodput (Mbit/s)"]
    # 3 MB a second over both flows: 24 Mbit/s in each second, each run.
    assert sorted(goodput["second"].unique()) == [1, 2, 3]
    assert goodput["value"].tolist() == pytest.approx([24.0] * 12)
    delay = table[(table["series"] == "multimedia one-way delay (ms)") & (table["repetition"] == 2)]
    assert set(delay["value"]) == {12.0}
    assert set(table["configuration"]) == {"RED", "CBT"}


def test_the_multimedia_loss_over_the_runs() -> None:
    # The blast's 100 lost packets are not the multimedia flows'.
    assert _loss_text([run("red", 1, 8), run("red", 2, 6)]) == (
        "multimedia loss 30.0 % [20.0–40.0, n=2]"
    )
    assert goodput_per_second(run("red", 1, 0)).tolist() == pytest.approx([24.0] * 3)


def test_no_figure_without_bulk_or_multimedia_flows(tmp_path: Path) -> None:
    data = run("red", 1, 5)
    bare = PointData(
        data.point,
        pd.DataFrame(),
        pd.DataFrame(),
        [],
        [],
        pd.DataFrame(columns=["flow", "bytes", "t_s"]),
    )
    assert timelines([bare], Labeller([bare.point]), tmp_path) is None


def traced(repetition: int) -> PointData:
    """A bulk-only run whose sender (and receiver, which acknowledges nothing) was traced:
    cwnd 10 + the repetition at each of 3 samples."""
    data = run("droptail", repetition, 0)
    rows = [
        {"host": host, "src": "10.1.1.1", "sport": sport, "dst": "10.2.1.1", "dport": dport,
         "t_s": float(t), "snd_cwnd_pkts": 10 + repetition, "srtt_us": 80_000,
         "bytes_acked": acked * (t + 1), "bytes_received": received * (t + 1)}
        for t in range(3)
        for host, sport, dport, acked, received in (
            ("c1", 40000, 5201, 1000, 0), ("s1", 5201, 40000, 0, 1000)
        )
    ]  # fmt: skip
    return PointData(
        data.point, pd.DataFrame(), pd.DataFrame(), [], [], data.bulk, pd.DataFrame(rows)
    )


def test_the_first_runs_traced_senders_without_a_multimedia_row(tmp_path: Path) -> None:
    datas = [traced(2), traced(1)]
    assert timelines(datas, Labeller([d.point for d in datas]), tmp_path) is not None
    table = pd.read_csv(tmp_path / "figures" / "timelines.csv")
    assert "multimedia one-way delay (ms)" not in set(table["series"].dropna())
    cwnd = table[table["snd_cwnd_pkts"].notna()]
    # The sender of repetition 1 only: three samples of cwnd 11.
    assert cwnd["snd_cwnd_pkts"].tolist() == [11, 11, 11]
    assert set(cwnd["flow"]) == {"c1 10.1.1.1:40000 → 10.2.1.1:5201"}
