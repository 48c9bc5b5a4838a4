"""The demo's verdict: RED against FIFO with a 95 % interval over the repetitions.

    .venv/bin/python scripts/demo_verdict.py RESULTS/

Two lines, each RED − FIFO in percent of FIFO, paired repetition by repetition (both
queues ran each repetition's seed): first where Christiansen et al.'s claim is, the
median response time of short replies (up to 10 KB) at 90-98 % load, which they found
RED can shorten; then the median of all replies. Each is judged as the findings are
(p4aqm/report/verdicts.py): "reproduced" when the whole interval is below zero,
"not reproduced" when it is wholly above, else "inconclusive"; one repetition is always
inconclusive. p90 and loss follow, as means over the repetitions."""

import sys
from pathlib import Path

from p4aqm.experiments.claims import Requests
from p4aqm.report.findings import FindingsError, compare
from p4aqm.report.load import ResultsError, load_point, load_results

RED = {"topology.right_to_left_aqm.discipline": "red"}
FIFO = {"topology.right_to_left_aqm.discipline": "droptail"}
SHORT = Requests(reply_bytes_up_to=10_000)


def _line(what: str, results: list, requests: Requests | None) -> str:
    comparison = compare(results, RED, FIFO, "response_time_median_ms", requests=requests)
    difference = comparison.difference
    return (
        f"demo verdict: RED (30, 90) − FIFO 120, {what}: {difference.text(' %')},"
        f" {difference.runs_text}: {comparison.verdict}"
    )


def main(results: Path) -> int:
    try:
        datas = [load_point(p) for p in load_results(results, results.name) if p.status == "ok"]
        lines = [
            _line("median response time of replies up to 10 KB", datas, SHORT),
            _line("median response time of all replies", datas, None),
        ]
    except (ResultsError, FindingsError) as exc:
        print(f"demo: no verdict: {exc}")
        return 1
    print("\n".join(lines))
    print(
        f"demo: figure {results / 'report' / 'figures' / 'response-time-cdf.png'};"
        f" report {results / 'report' / 'index.html'}"
    )
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: demo_verdict.py RESULTS/", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(Path(sys.argv[1])))
