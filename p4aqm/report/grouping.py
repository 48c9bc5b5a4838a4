"""Which points go together: a panel per web load, a curve per configuration (the sweep
values other than the load), a mean over repetitions (points that differ only in their
repetition), and the labels that name them."""

import json
import math
import re
from pathlib import Path
from typing import Any

from p4aqm.report.labels import aqm_labels, is_aqm
from p4aqm.report.load import Point

LOAD_AXIS = "traffic.web.load_percent"

SweepKey = tuple[str, tuple[tuple[str, str], ...]]  # (source, the sweep values as text)


def value_text(value: Any) -> str:  # noqa: ANN401 - a sweep value is any YAML value
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int | str):
        return str(value)
    # A swept mapping (an AQM and its parameters) by its values, as its point is named.
    if isinstance(value, dict):
        return " ".join(value_text(v) for v in value.values())
    if isinstance(value, list):
        return ",".join(value_text(v) for v in value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def table_value(value: Any) -> Any:  # noqa: ANN401 - a sweep value is any YAML value
    """A sweep value for a table cell: numbers and strings as they are, the rest as text."""
    return value if isinstance(value, int | float | str) else value_text(value)


def is_numeric(values: list[Any]) -> bool:
    return all(
        isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in values
    )


def sweep_key(point: Point, without: frozenset[str] = frozenset()) -> SweepKey:
    items = tuple((k, value_text(v)) for k, v in point.sweep.items() if k not in without)
    return point.source, items


def configuration_key(point: Point) -> SweepKey:
    return sweep_key(point, frozenset({LOAD_AXIS}))


def panel_title(load_percent: float | None) -> str:
    return "web load not given" if load_percent is None else f"load {load_percent:g} %"


def source_labels(folders: list[Path]) -> list[str]:
    """Each results folder's name, or its whole path where two names are the same."""
    names = [f.resolve().name for f in folders]
    if len(set(names)) == len(names):
        return names
    return [str(f) for f in folders]


def slug(text: str) -> str:
    """text as a file name stem."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "_"


def _aqm_value_labels(points: list[Point]) -> dict[tuple[str, str], str]:
    """(sweep key, value text) -> human label, for every swept AQM."""
    labels = {}
    keys = dict.fromkeys(k for p in points for k, v in p.sweep.items() if is_aqm(v))
    for key in keys:
        values = {value_text(p.sweep[key]): p.sweep[key] for p in points if key in p.sweep}
        for text, label in zip(values, aqm_labels(list(values.values())), strict=True):
            labels[key, text] = label
    return labels


class Labeller:
    """Labels for one report's points: sweep keys by their last part unless two would read
    alike, swept AQMs by their human labels (p4aqm/report/labels.py; with their key only
    when both directions' AQMs are swept), and the results folder's name first when there
    are several folders."""

    def __init__(self, points: list[Point]) -> None:
        keys = list(dict.fromkeys(k for p in points for k in p.sweep))
        last = [k.rsplit(".", 1)[-1] for k in keys]
        self.short = {k: s if last.count(s) == 1 else k for k, s in zip(keys, last, strict=True)}
        self.sources = list(dict.fromkeys(p.source for p in points))
        self.experiment = next((p.experiment_name for p in points if p.experiment_name), "")
        self.aqm_values = _aqm_value_labels(points)
        self.aqm_keys = {k for k, _ in self.aqm_values}

    def key_name(self, key: str) -> str:
        return self.short.get(key, key)

    def value(self, key: str, text: str) -> str:
        """One sweep value as a label shows it."""
        if (key, text) not in self.aqm_values:
            return f"{self.key_name(key)}={text}"
        label = self.aqm_values[key, text]
        return label if len(self.aqm_keys) == 1 else f"{self.key_name(key)}: {label}"

    def values(self, items: tuple[tuple[str, str], ...]) -> str:
        return ", ".join(self.value(k, v) for k, v in items)

    def label(self, key: SweepKey) -> str:
        """A curve's label: the folder (when several) and the sweep values of key."""
        source, items = key
        values = self.values(items)
        if len(self.sources) > 1:
            return f"{source}: {values}" if values else source
        return values or self.experiment or "all points"

    def point_slug(self, point: Point) -> str:
        """A point's figure-file stem: unique across the folders of the report."""
        if len(self.sources) > 1:
            return slug(f"{point.source}--{point.name}")
        return slug(point.name)
