"""The demo's last line: RED against FIFO from the report's summary, in one sentence.

    .venv/bin/python scripts/demo_verdict.py RESULTS/

The verdict compares median response times (the seed study's main measure): RED helped
if its median is over 5 % shorter than FIFO's, hurt if over 5 % longer, else the two are
about the same; p90 and loss are printed beside it so the reader can judge."""

import json
import sys
from pathlib import Path

import pandas as pd

SAME = 0.05


def main(results: Path) -> int:
    summary = pd.read_csv(results / "report" / "summary.csv")
    rows = {}
    for _, row in summary.iterrows():
        manifest = json.loads((results / "points" / row["point"] / "manifest.json").read_text())
        rows[manifest["topology"]["right_to_left_aqm"]["discipline"]] = row
    fifo, red = rows.get("droptail"), rows.get("red")
    if fifo is None or red is None:
        print(f"demo: no FIFO and RED points in {results}: see {results / 'report'}")
        return 1
    change = red["response_time_median_ms"] / fifo["response_time_median_ms"] - 1
    verdict = (
        "RED shortened the median response"
        if change < -SAME
        else "RED lengthened the median response"
        if change > SAME
        else "RED and FIFO are about the same"
    )
    loss = "loss_percent_server_to_client"
    print(
        f"demo verdict: {verdict} ({change:+.0%}): median {red['response_time_median_ms']:.0f}"
        f" vs {fifo['response_time_median_ms']:.0f} ms, p90 {red['response_time_p90_ms']:.0f}"
        f" vs {fifo['response_time_p90_ms']:.0f} ms, loss {red[loss]:.1f}"
        f" vs {fifo[loss]:.1f} % (RED (30, 90) vs FIFO 120 packets,"
        f" 98 % load). Figure: {results / 'report' / 'figures' / 'response-time-cdf.png'};"
        f" report: {results / 'report' / 'index.html'}"
    )
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: demo_verdict.py RESULTS/", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(Path(sys.argv[1])))
