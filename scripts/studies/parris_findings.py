"""The numbers of the README's Parris et al. findings table, from a results folder of
experiments/studies/parris-cbt.yaml: per discipline (mean, min, max over repetitions)
the marked UDP flows' loss over the whole run and while the blast runs, the bulk TCP
flows' goodput while the blast runs and over the run, and the blast's own loss.

    .venv/bin/python scripts/studies/parris_findings.py results/parris-cbt-quick

A CBR packet's send time is taken as its schedule (the sender's first send plus seq times
its mean interval), lost or not: with jittered senders (jitter_percent) a packet left up
to that share of an interval after it, so a packet is placed in or out of the blast
window to within one interval (38 ms at 210 kbit/s), never by whether it arrived.
"""

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from p4aqm.report.load import Point as ReportPoint
from p4aqm.report.load import load_results, read_bulk
from p4aqm.traffic.records import read_records

BLAST_S = (20.0, 110.0)


def marked_loss(folder: Path, epoch_ns: int) -> tuple[float, float]:
    """Percent of marked packets lost over the run and inside the blast window."""
    sent = received = sent_in = received_in = 0
    for summary_path in sorted((folder / "udp").glob("cbr*.json")):
        summary = json.loads(summary_path.read_text())
        packets, _ = read_records(summary_path.with_suffix(".parquet"))
        count = summary["packets_sent"]
        interval_ns = (summary["last_send_ns"] - summary["first_send_ns"]) / (count - 1)
        send_s = (summary["first_send_ns"] - epoch_ns + np.arange(count) * interval_ns) / 1e9
        inside = (send_s >= BLAST_S[0]) & (send_s < BLAST_S[1])
        got = np.isin(np.arange(count), packets["seq"].to_numpy())
        sent, received = sent + count, received + int(got.sum())
        sent_in, received_in = sent_in + int(inside.sum()), received_in + int((got & inside).sum())
    return 100 * (1 - received / sent), 100 * (1 - received_in / sent_in)


def tcp_goodput_mbps(point: ReportPoint) -> tuple[float, float]:
    """Bulk TCP goodput summed over flows: over the window, and inside the blast window,
    from the receivers' intervals as the report reads them (read_bulk)."""
    intervals, _ = read_bulk(point)
    start_ns, end_ns = point.window
    blast = intervals[(intervals["t_s"] > BLAST_S[0]) & (intervals["t_s"] <= BLAST_S[1])]
    whole_s = (end_ns - start_ns) / 1e9
    return (
        8 * intervals["bytes"].sum() / whole_s / 1e6,
        8 * blast["bytes"].sum() / (BLAST_S[1] - BLAST_S[0]) / 1e6,
    )


def main(results: Path) -> int:
    rows = []
    for point in load_results(results, results.name):
        folder, manifest = point.folder, point.manifest
        if manifest["status"] != "ok":
            print(f"{folder.name}: skipped, {manifest['error']}")
            continue
        loss_all, loss_blast = marked_loss(folder, manifest["epoch_ns"])
        tcp_all, tcp_blast = tcp_goodput_mbps(point)
        blast, _ = read_records(folder / "udp" / "blast0.parquet")
        blast_sent = json.loads((folder / "udp" / "blast0.json").read_text())["packets_sent"]
        rows.append(
            {
                "discipline": manifest["topology"]["left_to_right_aqm"]["discipline"],
                "marked_loss_pct": loss_all,
                "marked_loss_during_blast_pct": loss_blast,
                "tcp_goodput_mbps": tcp_all,
                "tcp_goodput_during_blast_mbps": tcp_blast,
                "blast_loss_pct": 100 * (1 - len(blast) / blast_sent),
            }
        )
    if not rows:
        print(f"{results}: no completed points", file=sys.stderr)
        return 2
    table = pd.DataFrame(rows).groupby("discipline").agg(["mean", "min", "max"]).round(2)
    print(table.to_string())
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: parris_findings.py RESULTS/", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(Path(sys.argv[1])))
