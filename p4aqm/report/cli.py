"""`p4aqm report RESULTS/ [-o OUT/]`: a results folder as figures, tables and one
index.html; `p4aqm report --compare A B [-o OUT/]`: two results folders side by side,
each curve and row labelled with its folder's name.

OUT (default RESULTS/report/, or A/report-vs-B/) gets index.html, summary.csv, setup.csv
and setup.md (every setting the points ran with, beside the paper's), fidelity.csv (each
point's emulation fidelity and whether it ran within its bounds), drops.csv,
repetitions.csv (when points repeat), findings.csv and findings.md (when the experiment
states claims) and figures/ (PNG, SVG and CSV of each figure). The claims are the
experiment file's `findings:` section, as the points ran it or from `--findings FILE`;
their table ends the page and is printed. Bad input is one error line naming the path,
and exit status 2.
"""

import argparse
import sys
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import TypeAdapter, ValidationError

from p4aqm.experiments.claims import Claim
from p4aqm.experiments.spec import ExperimentError, load_experiment
from p4aqm.report import claim_figures, figures
from p4aqm.report.bulk_figure import bulk_by_configuration
from p4aqm.report.fidelity import HEADERS as FIDELITY_HEADERS
from p4aqm.report.fidelity import fidelity_table
from p4aqm.report.files import write_csv, write_text
from p4aqm.report.findings import FindingsError, as_text, findings_markdown, findings_table
from p4aqm.report.grouping import Labeller, slug, source_labels
from p4aqm.report.html import PointSection, Problem, Report, Table, write_html
from p4aqm.report.load import (
    Point,
    PointData,
    ResultsError,
    load_point,
    load_results,
)
from p4aqm.report.metrics import (
    METRICS,
    axis_table,
    drops_table,
    repetition_table,
    summary_table,
    sweep_axes,
    udp_table,
)
from p4aqm.report.setup import HEADERS as SETUP_HEADERS
from p4aqm.report.setup import as_markdown, setup_table, unstated
from p4aqm.report.tcp_state import tcp_over_time
from p4aqm.report.timelines import timelines

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
    "ci95_low": "95 % CI low",
    "ci95_high": "95 % CI high",
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
        tcp_over_time(data, stem, out),
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


def paper_of(points: list[Point], findings_file: Path | None) -> dict[str, dict[str, Any]]:
    """The paper's settings: findings_file's paper: section, else the first point's."""
    if findings_file is not None:
        experiment, _ = load_experiment(findings_file)
        return {k: v.model_dump() for k, v in experiment.paper.items()}
    for point in points:
        stated = point.manifest.get("experiment", {}).get("paper")
        if stated:
            return stated
    return {}


def _setup_view(points: list[Point], findings_file: Path | None, out: Path) -> Table | None:
    """Write setup.csv and setup.md, warn of settings the paper: section leaves out, and
    show the table; None when no point ran."""
    table = setup_table(points, paper_of(points, findings_file))
    if not len(table):
        return None
    write_csv(out / "setup.csv", table)
    write_text(out / "setup.md", as_markdown(table))
    missing = unstated(table)
    if missing:
        print(
            f"p4aqm report: warning: the paper's value is not stated for {', '.join(missing)}",
            file=sys.stderr,
        )
    return Table(table, SETUP_HEADERS, "setup.csv")


def _load_points(points: list[Point]) -> tuple[list[PointData], list[Problem]]:
    """The data of the points that ran and can be read; a problem for each other one."""
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
            continue
        if unconnected := datas[-1].bulk_unconnected:
            print(
                f"p4aqm report: warning: {point.name}: {len(unconnected)} bulk flows never"
                f" connected; the first: {unconnected[0]}",
                file=sys.stderr,
            )
    return datas, problems


def _summary_view(
    summary: pd.DataFrame, points: list[Point], datas: list[PointData], labeller: Labeller
) -> Table:
    """The summary as shown: which point (and results folder, repetition) each row is,
    its sweep's values, then the metrics."""
    shown = ["results"] if len(labeller.sources) > 1 else []
    shown += ["point"]
    shown += ["repetition"] if any(d.point.repetition > 1 for d in datas) else []
    swept = {k for p in points for k in p.sweep}
    sweep_columns = [c for c in summary.columns if c in swept]
    headers = {c: c for c in shown}
    headers |= {c: labeller.key_name(c) for c in sweep_columns}
    headers |= {"web_users": "web users", **METRICS, "fidelity": "fidelity"}
    # Swept AQMs by their human labels; summary.csv keeps every parameter.
    shown_aqms = {
        c: summary[c].map(lambda text, c=c: labeller.aqm_values.get((c, text), text))
        for c in sweep_columns
        if c in labeller.aqm_keys
    }
    return Table(summary.assign(**shown_aqms), headers, "summary.csv")


def _drops_view(drops: pd.DataFrame, out: Path, several: bool) -> Table | None:
    """Write drops.csv and show it, unless no point monitored a queue."""
    if not len(drops):
        return None
    write_csv(out / "drops.csv", drops)
    return Table(drops, _drops_headers(list(drops.columns), several), "drops.csv")


def _repetitions_view(
    datas: list[PointData], summary: pd.DataFrame, labeller: Labeller, out: Path
) -> Table | None:
    """Write repetitions.csv and show it, unless no point repeats."""
    repetitions = repetition_table(datas, summary, labeller)
    if not len(repetitions):
        return None
    write_csv(out / "repetitions.csv", repetitions)
    shown_spread = repetitions.assign(metric=repetitions["metric"].map(METRICS))
    return Table(shown_spread, SPREAD_HEADERS, "repetitions.csv")


def _comparisons(
    datas: list[PointData], summary: pd.DataFrame, labeller: Labeller, out: Path
) -> list[figures.FigureFile]:
    """One figure along each sweep axis that has values to compare."""
    drawn = []
    for axis in sweep_axes(datas):
        table = axis_table(datas, summary, labeller, axis)
        if len(table):
            drawn.append(figures.along_axis(table, axis, labeller, out))
    return drawn


def _findings(
    claims: list[Claim], datas: list[PointData], summary: pd.DataFrame, out: Path, source: Path
) -> pd.DataFrame | None:
    """Check the claims, write findings.csv and print the verdicts; None without claims.
    A claim that cannot be checked is an error about `source`, where the claims are."""
    if not claims:
        return None
    try:
        findings = findings_table(claims, datas, summary)
    except FindingsError as exc:
        raise ResultsError(source, f"findings: {exc}") from None
    write_csv(out / "findings.csv", findings)
    write_text(out / "findings.md", findings_markdown(findings))
    print(f"findings ({len(claims)} claims):\n{as_text(findings)}")
    return findings


def build_report(folders: list[Path], out: Path, findings_file: Path | None = None) -> Path:
    """Read the results folders, write the report into out; the path of its index.html."""
    labels = source_labels(folders)
    points = [
        p
        for folder, label in zip(folders, labels, strict=True)
        for p in load_results(folder, label)
    ]
    labeller = Labeller(points)
    datas, problems = _load_points(points)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ResultsError(out, f"cannot make the report's folder: {exc.strerror}") from None
    several = len(labeller.sources) > 1

    fidelity = fidelity_table(datas)
    write_csv(out / "fidelity.csv", fidelity)
    # The summary marks each point's fidelity by its verdict's first words.
    summary = summary_table(datas).assign(fidelity=fidelity["verdict"].str.split(":").str[0])
    write_csv(out / "summary.csv", summary)
    drops = drops_table(datas)
    drops_view = _drops_view(drops, out, several)
    repetitions_view = _repetitions_view(datas, summary, labeller, out)
    comparisons = _comparisons(datas, summary, labeller, out)
    comparisons += filter(
        None,
        [
            timelines(datas, labeller, out),
            bulk_by_configuration(datas, summary, labeller, out),
        ],
    )
    queue_figures = [
        figures.queue_histogram(datas, labeller, out),
        figures.drops_by_cause(drops, labeller, out),
    ]
    claims = claims_of(points, findings_file)
    findings = _findings(claims, datas, summary, out, findings_file or folders[0])
    drawn_claims = claim_figures.claim_figures(claims, datas, summary, out)

    names = list(dict.fromkeys(p.experiment_name or p.source for p in points))
    title = "p4aqm report: " + (" vs ".join(labels) if several else ", ".join(names))
    report = Report(
        title=title,
        sources=dict(zip(labels, folders, strict=True)),
        summary=_summary_view(summary, points, datas, labeller),
        problems=problems,
        response_times=[
            *figures.response_times(datas, labeller, out),
            *filter(None, [figures.response_time_by_rtt(datas, labeller, out)]),
        ],
        comparisons=comparisons,
        repetitions=repetitions_view,
        queues=[f for f in queue_figures if f is not None],
        drops=drops_view,
        fidelity=Table(fidelity, FIDELITY_HEADERS, "fidelity.csv"),
        points=[_point_section(d, labeller, out) for d in datas],
        findings=findings,
        claim_figures=drawn_claims,
        setup=_setup_view(points, findings_file, out),
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
