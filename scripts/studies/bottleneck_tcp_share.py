"""TCP's share of the bottleneck, counted at the bottleneck, against what the bulk
receivers read: the cross-check of the README's Parris et al. section.

    .venv/bin/python scripts/studies/bottleneck_tcp_share.py results/parris-cbt-quick

Per point, over the rows of throughput.csv (client -> server): the bottleneck's frame
bytes less the UDP frames the receivers logged (payload + UDP, IPv4 and Ethernet
headers), as Mbit/s; beside it the bulk receivers' bytes whose interval ends in the
same seconds (read_bulk in p4aqm/report/load.py). Then the mean per discipline. TCP's
frames include headers and retransmissions, so the receivers' payload should stay below
them.
"""

import json
import math
import sys
from collections import Counter
from pathlib import Path

import pandas as pd

from p4aqm.report.load import load_results, read_bulk

UDP_FRAME_OVERHEAD_BYTES = 14 + 20 + 8  # Ethernet, IPv4, UDP


def _by_second(times_s: pd.Series, weights: pd.Series) -> Counter:
    seconds = Counter()
    for t, w in zip(times_s, weights, strict=True):
        seconds[math.ceil(t)] += int(w)
    return seconds


def point_figures(folder: Path) -> tuple[float, float]:
    """(TCP frames at the bottleneck, receivers' bytes), Mbit/s over the counted seconds."""
    start_s = json.loads((folder / "manifest.json").read_text())["window"]["start_ns"] / 1e9
    rows = pd.read_csv(folder / "throughput.csv")
    rows = rows[rows["direction"] == "client_to_server"]
    wire = _by_second(rows["elapsed_s"], rows["bytes"])
    udp: Counter = Counter()
    for path in (folder / "udp").glob("*.parquet"):
        packets = pd.read_parquet(path, columns=["recv_ns", "payload_bytes"])
        udp += _by_second(
            packets["recv_ns"] / 1e9 - start_s, packets["payload_bytes"] + UDP_FRAME_OVERHEAD_BYTES
        )
    received: Counter = Counter()
    point = next(p for p in load_results(folder.parent.parent, "r") if p.folder == folder)
    intervals, _ = read_bulk(point)  # placed in time as the report places them
    received = _by_second(intervals["t_s"], intervals["bytes"])
    # The first row covers the seconds before it, from the sampler's start.
    seconds = [s for s in sorted(wire) if s > min(wire)]
    tcp_bytes = sum(wire[s] - udp[s] for s in seconds)
    received_bytes = sum(received[s] for s in seconds)
    return 8 * tcp_bytes / len(seconds) / 1e6, 8 * received_bytes / len(seconds) / 1e6


def main(results: Path) -> None:
    by_discipline: dict[str, list[tuple[float, float]]] = {}
    for folder in sorted((results / "points").iterdir()):
        tcp, received = point_figures(folder)
        discipline = folder.name.split("aqm-")[1].split("_")[0]
        by_discipline.setdefault(discipline, []).append((tcp, received))
        print(f"{folder.name}: TCP frames {tcp:.2f} Mbit/s, receivers {received:.2f} Mbit/s")
    for discipline, figures in by_discipline.items():
        tcp = [f[0] for f in figures]
        received = [f[1] for f in figures]
        print(
            f"{discipline}: TCP frames mean {sum(tcp) / len(tcp):.2f}"
            f" ({min(tcp):.2f}-{max(tcp):.2f}), receivers mean"
            f" {sum(received) / len(received):.2f} Mbit/s, n={len(figures)}"
        )


if __name__ == "__main__":
    if len(sys.argv) != 2 or not (Path(sys.argv[1]) / "points").is_dir():
        sys.exit("usage: bottleneck_tcp_share.py RESULTS_FOLDER (one holding points/)")
    main(Path(sys.argv[1]))
