"""index.html: one self-contained page (inline CSS, no script, nothing fetched from
elsewhere) with the tables as HTML and the figures by their path relative to it."""

import html
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from p4aqm.report.figures import FIGURES_DIR, FigureFile
from p4aqm.report.files import write_text
from p4aqm.report.findings import COLUMNS as FINDINGS_COLUMNS
from p4aqm.report.load import Point
from p4aqm.report.metrics import DEFINITIONS

CSS = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1400px;
       padding: 0 1.5em 3em; color: #222; }
h1 { margin-top: 1em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
nav a { margin-right: 1em; } .meta { color: #555; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ddd; padding: 3px 7px; text-align: right; white-space: nowrap; }
th { background: #f0f0f0; position: sticky; top: 0; }
td.text, th.text { text-align: left; }
tr:nth-child(even) td { background: #fafafa; }
figure { margin: 1em 0 2em; } figure img { max-width: 100%; height: auto; }
figcaption { color: #444; font-size: 14px; max-width: 60em; }
.failed { color: #a00; }
tr.claim td { background: #eef3fb; font-weight: 600; white-space: normal; }
td.reproduced { color: #060; } td.not-reproduced { color: #a00; }
td.inconclusive { color: #8a5a00; } td.no-data { color: #777; }
td.reason { white-space: normal; text-align: left; min-width: 14em; color: #555;
            font-size: 12px; }
td.wrap { white-space: normal; text-align: left; min-width: 14em; }
dt { font-weight: 600; } dd { margin: 0 0 0.6em 1.5em; max-width: 60em; }
"""


@dataclass(frozen=True)
class Table:
    frame: pd.DataFrame
    headers: dict[str, str]  # column -> header; the columns shown, in order
    csv: str | None = None  # its data, relative to index.html


@dataclass(frozen=True)
class Problem:
    """A point the report has no results of: failed when run, or its records unreadable."""

    point: Point
    status: str
    error: str


@dataclass(frozen=True)
class PointSection:
    point: Point
    anchor: str
    figures: list[FigureFile]
    tables: list[tuple[str, Table]]  # (title, table)


@dataclass(frozen=True)
class Report:
    title: str
    sources: dict[str, Path]  # label -> results folder
    summary: Table
    problems: list[Problem]
    response_times: list[FigureFile]
    comparisons: list[FigureFile]
    repetitions: Table | None
    queues: list[FigureFile]
    drops: Table | None
    fidelity: Table
    points: list[PointSection]
    findings: pd.DataFrame | None = None  # p4aqm/report/findings.py's table
    claim_figures: list[FigureFile] = field(default_factory=list)  # claim_figures.py's
    setup: Table | None = None  # p4aqm/report/setup.py's table


def cell(value: object) -> str:
    """A number to three significant digits (whole above 100), n/a for a missing one."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, float):
        return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"
    return str(value)


def _table(table: Table) -> str:
    frame = table.frame
    text_columns = {c for c in table.headers if not pd.api.types.is_numeric_dtype(frame[c])}

    def attribute(column: str) -> str:
        return ' class="text"' if column in text_columns else ""

    head = "".join(f"<th{attribute(c)}>{html.escape(h)}</th>" for c, h in table.headers.items())
    rows = "".join(
        "<tr>"
        + "".join(f"<td{attribute(c)}>{html.escape(cell(row[c]))}</td>" for c in table.headers)
        + "</tr>\n"
        for _, row in frame.iterrows()
    )
    csv = f'<p><a href="{html.escape(table.csv)}">data (CSV)</a></p>' if table.csv else ""
    return f'<div class="scroll"><table><tr>{head}</tr>\n{rows}</table></div>{csv}\n'


def _figure(figure: FigureFile) -> str:
    base = f"{FIGURES_DIR}/{figure.stem}"
    title = html.escape(figure.title)
    return (
        f'<figure id="{html.escape(figure.stem)}"><img src="{base}.png" alt="{title}">'
        f"<figcaption><b>{title}.</b> {html.escape(figure.caption)} "
        f'<a href="{base}.svg">SVG</a> · <a href="{base}.csv">data (CSV)</a>'
        "</figcaption></figure>\n"
    )


def _problems(report: Report) -> str:
    several = len(report.sources) > 1
    items = "".join(
        f"<li><b>{html.escape(f'{p.point.source}: ' if several else '')}"
        f"{html.escape(p.point.name)}</b> ({html.escape(p.status)}): {html.escape(p.error)}</li>\n"
        for p in report.problems
    )
    return f'<ul class="failed">\n{items}</ul>\n'


def _point(section: PointSection) -> str:
    point = section.point
    start_ns, end_ns = point.window
    sweep = ", ".join(f"{k} = {v}" for k, v in point.sweep.items()) or "no sweep"
    parts = [
        f'<h3 id="{html.escape(section.anchor)}">{html.escape(point.name)}</h3>\n',
        f'<p class="meta">{html.escape(str(point.folder))}: {html.escape(sweep)};'
        f" repetition {point.repetition}; window {(end_ns - start_ns) / 1e9:g} s</p>\n",
    ]
    parts += [_figure(f) for f in section.figures]
    for title, table in section.tables:
        parts += [f"<h4>{html.escape(title)}</h4>\n", _table(table)]
    return "".join(parts)


def _verdict_cell(verdict: str) -> str:
    """A verdict, coloured by its class (reproduced, not-reproduced, inconclusive, no-data)."""
    return f'<td class="text {verdict.replace(" ", "-")}">{html.escape(verdict)}</td>'


def _findings(frame: pd.DataFrame) -> str:
    """A row per claim (its verdict and what differs in our setup), its checks below it,
    after a paragraph on how the verdicts are decided (p4aqm/report/verdicts.py)."""
    shown = [c for c in FINDINGS_COLUMNS if c not in ("claim", "note")]
    head = "".join(f'<th class="text">{html.escape(FINDINGS_COLUMNS[c])}</th>' for c in shown)
    rows = []
    for _, row in frame.iterrows():
        if row["claim"]:
            note = f"<br><i>{html.escape(row['note'])}</i>" if row["note"] else ""
            rows.append(
                f'<tr class="claim"><td class="wrap" colspan="{len(shown) - 1}">'
                f"{html.escape(row['claim'])}{note}</td>{_verdict_cell(row['verdict'])}</tr>\n"
            )
            continue
        cells = "".join(
            _verdict_cell(row[c])
            if c == "verdict"
            else f'<td class="{"reason" if c == "reason" else "wrap"}">{html.escape(row[c])}</td>'
            for c in shown
        )
        rows.append(f"<tr>{cells}</tr>\n")
    return (
        "<p>a − b is taken run by run where the two sides' runs share seeds (paired: the"
        " same repetition of one experiment), else between the sides' means (unpaired,"
        " Welch), with its t interval over runs, never over requests. Reproduced: the"
        " interval settles the claim (a direction: 95 % interval on the claimed side of"
        " zero and the estimate beyond the threshold; the same, at most, about: 90 %"
        " interval inside the margin); not reproduced: it excludes the claim; else"
        " inconclusive, as is every check with one run a side. A claim is reproduced when"
        " all its checks with data are, not reproduced when any is not.</p>\n"
        f'<div class="scroll"><table><tr>{head}</tr>\n{"".join(rows)}</table></div>'
        '<p><a href="findings.csv">data (CSV)</a></p>\n'
    )


def _navigation(report: Report) -> str:
    sections = [("setup", "Setup")] if report.setup is not None else []
    sections.append(("summary", "Summary"))
    if report.problems:
        sections.append(("failed", "Failed points"))
    sections += [
        ("response-times", "Response times"),
        ("comparisons", "Comparisons"),
        ("queues", "Queues, drops and marks"),
        ("fidelity", "Fidelity"),
        ("points", "Points"),
        ("definitions", "Definitions"),
    ]
    if report.findings is not None:
        sections.append(("findings", "Findings"))
    links = "".join(f'<a href="#{anchor}">{title}</a>' for anchor, title in sections)
    return f"<nav>{links}</nav>\n"


def render(report: Report) -> str:
    sources = "; ".join(f"{label}: {path}" for label, path in report.sources.items())
    commits = sorted(
        {
            f"{git.get('commit', '?')[:12]}{' (dirty)' if git.get('dirty') else ''}"
            for section in report.points
            if isinstance(git := section.point.manifest.get("git"), dict)
        }
    )
    body = [
        f"<h1>{html.escape(report.title)}</h1>\n",
        f'<p class="meta">Results: {html.escape(sources)}. '
        f"{len(report.points)} point(s) with results, {len(report.problems)} without. "
        f"Git: {html.escape(', '.join(commits) or 'n/a')}. "
        f"Written {time.strftime('%Y-%m-%d %H:%M:%S %Z')} by p4aqm report.</p>\n",
        _navigation(report),
    ]
    if report.setup is not None:
        body += [
            '<h2 id="setup">Setup</h2>\n<p>Every setting the points ran with, from their'
            " manifests, beside the paper's (the experiment file's paper: section).</p>\n",
            _table(report.setup),
        ]
    body += ['<h2 id="summary">Summary</h2>\n', _table(report.summary)]
    if report.problems:
        body += ['<h2 id="failed">Failed points</h2>\n', _problems(report)]
    body.append('<h2 id="response-times">Response times</h2>\n')
    body += [_figure(f) for f in report.response_times] or ["<p>No completed web request.</p>"]
    body.append('<h2 id="comparisons">Comparisons</h2>\n')
    body += [_figure(f) for f in report.comparisons]
    if report.repetitions is not None:
        body += ["<h3>Repetitions: mean, std, min and max</h3>\n", _table(report.repetitions)]
    if not report.comparisons and report.repetitions is None:
        body.append("<p>No sweep axis with more than one value, and no repetitions.</p>")
    body.append('<h2 id="queues">Queues, drops and marks</h2>\n')
    body += [_figure(f) for f in report.queues]
    if report.drops is not None:
        body.append(_table(report.drops))
    else:
        body.append("<p>No queue monitor (no AQM on either bottleneck direction).</p>")
    body += [
        '<h2 id="fidelity">Fidelity</h2>\n<p>How faithful each point\'s emulation was, over'
        " its traffic period: how much later than scheduled the routers' links sent packets"
        " (the worst router), how late the web users' pages started, the queue monitor's"
        " losses, the CPU of the point's processes and the machine's. A point outside the"
        " bounds (experiments/README.md) keeps its results everywhere else; it is marked"
        " here and in the summary.</p>\n",
        _table(report.fidelity),
    ]
    body.append('<h2 id="points">Points</h2>\n')
    body.append(
        "<p>"
        + " · ".join(
            f'<a href="#{html.escape(s.anchor)}">{html.escape(s.anchor)}</a>' for s in report.points
        )
        + "</p>\n"
    )
    body += [_point(s) for s in report.points]
    body.append('<h2 id="definitions">Definitions</h2>\n<dl>\n')
    body += [
        f"<dt>{html.escape(term)}</dt><dd>{html.escape(text)}</dd>\n"
        for term, text in DEFINITIONS.items()
    ]
    body.append("</dl>\n")
    if report.findings is not None:
        body += [
            '<h2 id="findings">Findings</h2>\n<p>Each claim of the study (the experiment'
            " file's findings section) with the checks that decide it: a is the"
            " configuration the claim is about, b its baseline; each side is the mean over"
            " its points, with [min–max, n] over repetitions.</p>\n",
            _findings(report.findings),
            *(_figure(f) for f in report.claim_figures),
        ]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(report.title)}</title>\n<style>{CSS}</style>\n</head>\n"
        f"<body>\n{''.join(body)}</body>\n</html>\n"
    )


def write_html(report: Report, out: Path) -> Path:
    path = out / "index.html"
    write_text(path, render(report))
    return path
