"""`p4aqm report RESULTS/ [-o OUT/]`: a results folder as figures, tables and one
index.html; `p4aqm report --compare A B [-o OUT/]`: two results folders side by side,
each curve and row labelled with its folder's name.

OUT (default RESULTS/report/, or A/report-vs-B/) gets index.html, summary.csv,
drops.csv, repetitions.csv (when points repeat), findings.csv (when the experiment states
claims) and figures/ (PNG, SVG and CSV of each figure). The claims are the experiment
file's `findings:` section, as the points ran it or from `--findings FILE`; their table
ends the page and is printed. Bad input is one error line naming the path, and exit
status 2.
"""

import argparse
import sys
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from experiments.claims import Claim
from experiments.report import figures
from experiments.report.files import write_csv
from experiments.report.findings import FindingsError, as_text, findings_table
from experiments.report.grouping import Labeller, slug, source_labels
from experiments.report.html import PointSection, Problem, Report, Table, write_html
from experiments.report.load import (
    Point,
    PointData,
    ResultsError,
    load_point,
    load_results,
)
from experiments.report.metrics import (
    METRICS,
    axis_table,
    drops_table,
    repetition_table,
    summary_table,
    sweep_axes,
    udp_table,
)
from experiments.spec import ExperimentError, load_experiment

UDP_HEADERS = {
    "flow": "flow",
    "sent": "sent",
    "received": "received",
    "lost": "lost",
    "loss_percent": "loss (%)",
    "duplicates": "duplicates",
    "owd_mean_ms": "one-way delay mean (ms)",
    "owd_p50_ms": "p50 (ms)",
    "owd_p99_ms": "p99 (ms)",
    "owd_max_ms": "max (ms)",
    "jitter_ms": "jitter, RFC 3550 (ms)",
}
SPREAD_HEADERS = {
    "configuration": "configuration",
    "metric": "metric",
    "repetitions": "repetitions",
    "mean": "mean",
    "std": "std",
    "min": "min",
    "max": "max",
}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="p4aqm report", description=__doc__.split("\n\n")[0])
    p.add_argument("results", type=Path, nargs="?", help="a results folder (p4aqm run -o)")
    p.add_argument(
        "-o", "--output", type=Path, help="the report's folder (RESULTS/report, A/report-vs-B)"
    )
    p.add_argument(
        "--findings",
        type=Path,
        metavar="EXPERIMENT.yaml",
        help="check the claims of this experiment file (default: those the points ran with)",
    )
    p.add_argument(
        "--compare",
        nargs=2,
        type=Path,
        metavar=("A", "B"),
        help="two results folders side by side (instead of RESULTS)",
    )
    return p


def _drops_headers(columns: list[str], several_sources: bool) -> dict[str, str]:
    headers = {"results": "results"} if several_sources else {}
    headers |= {"point": "point", "queue": "queue", "offered_pkts": "offered (pkts)"}
    headers |= {"enqueued_pkts": "enqueued (pkts)"}
    headers |= {
        c: c.removesuffix("_pkts").replace("_", " ") + " (pkts)"
        for c in columns
        if c.endswith(("drops_pkts", "marks_pkts"))
    }
    return headers | {
        "dropped_pkts": "dropped (pkts)",
        "marked_pkts": "marked (pkts)",
        "loss_percent": "loss (%)",
        "mark_percent": "marks (%)",
    }


def _point_section(data: PointData, labeller: Labeller, out: Path) -> PointSection:
    stem = labeller.point_slug(data.point)
    drawn = [
        figures.utilisation(data, stem, out),
        figures.queue_over_time(data, stem, out),
        figures.udp_delay(data, stem, out),
    ]
    udp = udp_table(data)
    tables = [("UDP flows", Table(udp, UDP_HEADERS))] if len(udp) else []
    return PointSection(data.point, stem, [f for f in drawn if f is not None], tables)


CLAIMS = TypeAdapter(list[Claim])


def claims_of(points: list[Point], findings_file: Path | None) -> list[Claim]:
    """The claims to check: findings_file's (an ExperimentError names its line), else those
    in the first point's manifest."""
    if findings_file is not None:
        experiment, _ = load_experiment(findings_file)
        return experiment.findings
    for point in points:
        stated = point.manifest.get("experiment", {}).get("findings")
        if stated:
            try:
                return CLAIMS.validate_python(stated)
            except ValidationError as exc:
                err = exc.errors()[0]
                where = ".".join(str(x) for x in err["loc"])
                raise ResultsError(
                    point.folder / "manifest.json", f"experiment.findings.{where}: {err['msg']}"
                ) from None
    return []


def build_report(folders: list[Path], out: Path, findings_file: Path | None = None) -> Path:
    """Read the results folders, write the report into out; the path of its index.html."""
    labels = source_labels(folders)
    points = [
        p
        for folder, label in zip(folders, labels, strict=True)
        for p in load_results(folder, label)
    ]
    labeller = Labeller(points)
    datas: list[PointData] = []
    problems: list[Problem] = []
    for point in points:
        if point.status != "ok":
            problems.append(Problem(point, point.status, point.error or "no error recorded"))
            continue
        try:
            datas.append(load_point(point))
        except ResultsError as exc:
            print(f"p4aqm report: warning: {exc}", file=sys.stderr)
            problems.append(Problem(point, "unreadable", str(exc)))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ResultsError(out, f"cannot make the report's folder: {exc.strerror}") from None
    several = len(labeller.sources) > 1

    summary = summary_table(datas)
    write_csv(out / "summary.csv", summary)
    shown = ["results"] if several else []
    shown += ["point"]
    shown += ["repetition"] if any(d.point.repetition > 1 for d in datas) else []
    sweep_columns = [c for c in summary.columns if c in {k for p in points for k in p.sweep}]
    summary_headers = {c: c for c in shown}
    summary_headers |= {c: labeller.key_name(c) for c in sweep_columns}
    summary_headers |= {"web_users": "web users", **METRICS}

    drops = drops_table(datas)
    drops_view = None
    if len(drops):
        write_csv(out / "drops.csv", drops)
        drops_view = Table(drops, _drops_headers(list(drops.columns), several), "drops.csv")

    repetitions = repetition_table(datas, summary, labeller)
    repetitions_view = None
    if len(repetitions):
        write_csv(out / "repetitions.csv", repetitions)
        shown_spread = repetitions.assign(metric=repetitions["metric"].map(METRICS))
        repetitions_view = Table(shown_spread, SPREAD_HEADERS, "repetitions.csv")

    comparisons = []
    for axis in sweep_axes(datas):
        table = axis_table(datas, summary, labeller, axis)
        if len(table):
            comparisons.append(figures.along_axis(table, axis, labeller, out))

    queue_figures = [
        figures.queue_histogram(datas, labeller, out),
        figures.drops_by_cause(drops, labeller, out),
    ]
    findings = None
    if claims := claims_of(points, findings_file):
        try:
            findings = findings_table(claims, datas, summary)
        except FindingsError as exc:
            raise ResultsError(findings_file or folders[0], f"findings: {exc}") from None
        write_csv(out / "findings.csv", findings)
        print(f"findings ({len(claims)} claims):\n{as_text(findings)}")

    names = list(dict.fromkeys(p.experiment_name or p.source for p in points))
    title = "p4aqm report: " + (" vs ".join(labels) if several else ", ".join(names))
    report = Report(
        title=title,
        sources=dict(zip(labels, folders, strict=True)),
        summary=Table(summary, summary_headers, "summary.csv"),
        problems=problems,
        response_times=[
            *figures.response_times(datas, labeller, out),
            *filter(None, [figures.response_time_by_rtt(datas, labeller, out)]),
        ],
        comparisons=comparisons,
        repetitions=repetitions_view,
        queues=[f for f in queue_figures if f is not None],
        drops=drops_view,
        points=[_point_section(d, labeller, out) for d in datas],
        findings=findings,
    )
    return write_html(report, out)


def main(argv: list[str]) -> int:
    p = parser()
    args = p.parse_args(argv)
    if (args.results is None) == (args.compare is None):
        p.error("give a results folder, or --compare A B")
    folders: list[Path] = args.compare or [args.results]
    if args.output is not None:
        out = args.output
    elif args.compare:
        out = folders[0] / f"report-vs-{slug(source_labels(folders)[1])}"
    else:
        out = folders[0] / "report"
    try:
        index = build_report(folders, out, args.findings)
    except (ResultsError, ExperimentError) as exc:
        print(f"p4aqm report: error: {exc}", file=sys.stderr)
        return 2
    print(f"report: {index}")
    return 0
