"""The experiment file: one YAML document describing a topology, its AQM, its traffic and
how long to run, with a sweep over any of its fields.

    name: red-web
    topology:                  # DumbbellSpec's fields (p4aqm/topology/spec_file.py)
      right_to_left_aqm: {discipline: red, min_th: 30, max_th: 90, max_p: 0.1}
      host_tcp: {congestion_control: cubic}
    traffic:
      web: {load_percent: 90, calibration: calibrations/web-tcpeval.yaml}
      cbr: [{client: c1, server: s2, rate_bps: 210000}]
    duration_s: 60             # measured, after the warm-up
    warmup_s: 20               # run first and discarded
    sample_period_ms: 3
    seed: 1
    repetitions: 2
    sweep:                     # a grid: every combination is a point
      topology.right_to_left_aqm.min_th: [5, 30]
      traffic.web.load_percent: [50, 90]

Every error names the file, the line and the field.
"""

import copy
import hashlib
import itertools
import json
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from p4aqm.experiments.claims import Claim
from p4aqm.topology import DumbbellSpec
from p4aqm.topology.spec_file import SpecFileError, spec_from_mapping
from p4aqm.traffic.calibration import Calibration, load_calibration, users_for_load
from p4aqm.traffic.web.browsing import WebParams
from p4aqm.tuning.rules import Rules
from p4aqm.yaml_lines import YamlFileError, line_of, read_mapping


class ExperimentError(ValueError):
    pass


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class WebTraffic(Strict):
    """Web users on every client host against every server host. The number of users is
    `users`, or the calibration's for `load_percent` of the bottleneck's rate. Two-way,
    as many users again on the server hosts browse web servers on the client hosts, so
    that both directions of the bottleneck carry that load of replies."""

    users: int | None = Field(None, ge=1)
    load_percent: float | None = Field(None, gt=0, le=200)
    calibration: Path | None = None
    params: WebParams = WebParams()
    two_way: bool = False
    # The rate load_percent is a share of; unset, the bottleneck's. An uncongested
    # reference (a faster bottleneck) keeps the users of the congested load this way.
    load_rate_bps: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def one_way_to_size(self) -> "WebTraffic":
        if (self.users is None) == (self.load_percent is None):
            raise ValueError("give users or load_percent, not both")
        if self.load_percent is not None and self.calibration is None:
            raise ValueError("load_percent needs a calibration (p4aqm calibrate)")
        return self


class UdpFlow(Strict):
    client: str
    server: str
    rate_bps: float = Field(gt=0)
    payload_bytes: int = Field(1000, ge=16, le=1472)
    dscp: int = Field(0, ge=0, le=63)
    start_s: float = Field(0.0, ge=0)
    stop_s: float | None = Field(None, gt=0, description="None: until the end of the run")
    # Each packet up to this share of the interval late, drawn from the run's seed
    # (p4aqm/traffic/cbr.py): 0 paces perfectly.
    jitter_percent: float = Field(0.0, ge=0, lt=100)


class BulkTraffic(Strict):
    client: str
    server: str
    flows: int = Field(1, ge=1, le=256)
    # null: the client host's own (host_tcp), which a tuning rule may then change.
    congestion_control: str | None = "cubic"
    reverse: bool = False


class Traffic(Strict):
    web: WebTraffic | None = None
    cbr: list[UdpFlow] = []  # multimedia: 210 kbit/s, DSCP AF41 by default
    blast: list[UdpFlow] = []  # unresponsive UDP
    bulk: list[BulkTraffic] = []


class TcpTrace(Strict):
    """Per-flow TCP tracing (p4aqm/traffic/tcp_trace.py): every connection of these hosts
    (or those with a local or remote port in `ports`) sampled every period_ms, into the
    point's tcp/HOST.parquet."""

    hosts: list[str] = Field(min_length=1)
    period_ms: float = Field(10.0, ge=1, le=60_000)
    ports: list[int] = []

    @field_validator("ports")
    @classmethod
    def ports_valid(cls, ports: list[int]) -> list[int]:
        bad = [p for p in ports if not 0 < p < 65536]
        if bad:
            raise ValueError(f"port {bad[0]}: a port is 1-65535")
        return ports


class PaperSetting(Strict):
    """What the paper a study reproduces used for one setting of the setup table
    (p4aqm/report/setup.py), and why ours differs, if it does."""

    value: str
    differs: str | None = None


class Reference(Strict):
    """A configuration run beside the sweep's grid: `set` (dotted field -> value) crossed
    with the grid's values of every axis it does not set, each `repetitions` times. Its
    points show `reference: LABEL` where grid points show their swept values (Christiansen
    et al.'s uncongested best case at every load)."""

    label: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    set: dict[str, Any] = Field(min_length=1)
    repetitions: int = Field(1, ge=1, le=1000)


class Experiment(Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    topology: dict[str, Any] = {}
    traffic: Traffic = Traffic()
    duration_s: float = Field(gt=0, le=24 * 3600)
    warmup_s: float = Field(0.0, ge=0)
    sample_period_ms: float = Field(100.0, ge=1, le=60_000)
    seed: int = 1
    repetitions: int = Field(1, ge=1, le=1000)
    sweep: dict[str, list[Any]] = {}
    # Named sets of changes (dotted field -> value), picked with `p4aqm run --profile`.
    profiles: dict[str, dict[str, Any]] = {}
    # The study's claims and how to check them (p4aqm/experiments/claims.py).
    findings: list[Claim] = []
    # The paper's value of each setting of the setup table, keyed by its `setting`.
    paper: dict[str, PaperSetting] = {}
    references: list[Reference] = []
    tcp_trace: TcpTrace | None = None
    # Per-connection TCP tuning after WAD (p4aqm/tuning/rules.py's rules), applied to every
    # connection the point's processes open: match the hosts by their addresses.
    tuning: Rules | None = None

    @model_validator(mode="after")
    def durations_fit(self) -> "Experiment":
        if self.sample_period_ms / 1000 > self.duration_s:
            raise ValueError("sample_period_ms is longer than duration_s: nothing to sample")
        for kind in ("cbr", "blast"):
            for flow in getattr(self.traffic, kind):
                end = self.warmup_s + self.duration_s
                if flow.start_s >= end or (flow.stop_s is not None and flow.stop_s > end):
                    raise ValueError(f"traffic.{kind}: start_s/stop_s outside the run ({end} s)")
                if flow.stop_s is not None and flow.stop_s <= flow.start_s:
                    raise ValueError(f"traffic.{kind}: stop_s {flow.stop_s} <= start_s")
        return self


class Point(BaseModel):
    """One combination of the sweep, one repetition: the resolved experiment."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    index: int
    name: str
    overrides: dict[str, Any]
    repetition: int
    experiment: Experiment
    topology: DumbbellSpec
    web_users: int | None
    calibration: Calibration | None


def _where(
    path: Path,
    lines: dict[tuple[str, ...], int],
    loc: tuple[str, ...],
    set_by: dict[str, tuple[str, ...]] | None = None,
) -> str:
    """FILE:LINE of the field at `loc`; a value a sweep or a profile set is on its line
    there (`set_by`: dotted field -> where in the file it was set)."""
    for key, origin in (set_by or {}).items():
        swept = tuple(key.split("."))
        shorter = min(len(swept), len(loc))
        if (len(loc) > 1 or len(swept) == 1) and swept[:shorter] == loc[:shorter]:
            return f"{path}:{lines.get(origin, lines.get(origin[:-1], 0))}"
    return line_of(path, lines, loc)


def _field_of(error: dict[str, Any]) -> tuple[str, ...]:
    """The field an error is about: its location, or for a check across fields (loc
    empty), the field its message begins with."""
    loc = tuple(str(x) for x in error["loc"])
    if loc:
        return loc
    named = re.match(r"(?:Value error, )?([a-z_]+(?:\.[a-z_]+)*)", error["msg"])
    return tuple(named.group(1).split(".")) if named else ()


def _set_path(document: dict[str, Any], dotted: str, value: Any) -> None:  # noqa: ANN401
    """Set the field at a dotted path; a number steps into a list (traffic.cbr.0.rate_bps)."""
    keys = dotted.split(".")
    node: Any = document
    for key in keys[:-1]:
        if isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
            continue
        if not isinstance(node, dict):
            raise KeyError(key)
        if node.get(key) is None:
            node[key] = {}
        node = node[key]
    last = keys[-1]
    if isinstance(node, list) and last.isdigit() and int(last) < len(node):
        node[int(last)] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise KeyError(last)


def _value_text(value: Any) -> str:  # noqa: ANN401 - any YAML value
    """A swept value as a point's name shows it: a mapping (an AQM and its parameters) by
    its values, a list of scalars joined by '-', a list of mappings (CBT's class rules,
    too long to spell) by a digest, so that names tell every two values apart."""
    if isinstance(value, dict):
        return "_".join(_value_text(v) for v in value.values())
    if isinstance(value, list):
        if all(not isinstance(v, list | dict) for v in value):
            return "-".join(str(v) for v in value)
        digest = hashlib.sha1(json.dumps(value, sort_keys=True).encode()).hexdigest()
        return f"h{digest[:6]}"
    return str(value)


def _point_name(index: int, overrides: dict[str, Any], repetition: int, repetitions: int) -> str:
    parts = [f"p{index:02d}"]
    for key, value in overrides.items():
        text = re.sub(r"[^A-Za-z0-9.-]+", "_", _value_text(value)).strip("_")
        parts.append(f"{key.rsplit('.', 1)[-1]}-{text}")
    if repetitions > 1:
        parts.append(f"rep{repetition}")
    return "_".join(parts)


def _read_yaml(path: Path) -> tuple[dict[str, Any], dict[tuple[str, ...], int]]:
    try:
        return read_mapping(path, "name, topology, traffic, ...")
    except YamlFileError as exc:
        raise ExperimentError(str(exc)) from None


def load_experiment(path: Path, profile: str | None = None) -> tuple[Experiment, list[Point]]:
    """The experiment (with `profile`'s changes, if given) and every point of its sweep,
    all validated before anything runs."""
    document, lines = _read_yaml(path)
    profiled: dict[str, tuple[str, ...]] = {}
    if profile is not None:
        profiles = document.get("profiles") or {}
        if profile not in profiles:
            names = ", ".join(profiles) or "none"
            raise ExperimentError(f"{path}: --profile {profile}: the file's profiles are {names}")
        for key, value in (profiles[profile] or {}).items():
            try:
                _set_path(document, key, copy.deepcopy(value))
            except KeyError:
                where = _where(path, lines, ("profiles", profile, key))
                raise ExperimentError(
                    f"{where}: profiles.{profile}.{key}: not a field path"
                ) from None
            profiled[key] = ("profiles", profile, key)

    def validate(data: dict[str, Any], overrides: dict[str, Any] | None = None) -> Experiment:
        try:
            return Experiment.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = _field_of(err)
            note = f" (sweep point {overrides})" if overrides else ""
            set_by = {**profiled, **{k: ("sweep", k) for k in overrides or {}}}
            raise ExperimentError(
                f"{_where(path, lines, loc, set_by)}: {'.'.join(loc)}: {err['msg']}{note}"
            ) from None

    experiment = validate(document)
    axes = list(experiment.sweep.items())
    for key, values in axes:
        if not values:
            raise ExperimentError(f"{_where(path, lines, ('sweep', key))}: sweep.{key}: empty list")
    grid = _grid(experiment)
    points = []
    for overrides, shown, repetitions in grid:
        resolved = copy.deepcopy(document)
        resolved.pop("sweep", None)
        resolved.pop("references", None)
        for key, value in overrides.items():
            try:
                _set_path(resolved, key, value)
            except KeyError:
                where = _where(path, lines, ("sweep", key) if key in shown else ("references",))
                raise ExperimentError(f"{where}: {key}: not a field path") from None
        point_experiment = validate(resolved, overrides)
        for repetition in range(1, repetitions + 1):
            index = len(points) + 1
            points.append(
                _resolve_point(
                    path,
                    lines,
                    point_experiment.model_copy(update={"repetitions": repetitions}),
                    shown,
                    index,
                    repetition,
                    profiled,
                )
            )
    return experiment, points


Grid = list[tuple[dict[str, Any], dict[str, Any], int]]


def _grid(experiment: Experiment) -> Grid:
    """(field changes, what the point's name and manifest show, repetitions) of every
    configuration: the sweep's combinations, then each reference crossed with the values
    of the axes it does not set, showing those and its label."""
    axes = list(experiment.sweep.items())
    grid: Grid = []
    for combination in itertools.product(*(values for _, values in axes)):
        overrides = dict(zip((k for k, _ in axes), combination, strict=True))
        grid.append((overrides, overrides, experiment.repetitions))
    for reference in experiment.references:
        free = [(k, values) for k, values in axes if k not in reference.set]
        for combination in itertools.product(*(values for _, values in free)):
            shown = dict(zip((k for k, _ in free), combination, strict=True))
            grid.append(({**shown, **reference.set}, {**shown, "reference": reference.label},
                         reference.repetitions))  # fmt: skip
    return grid


def _resolve_point(
    path: Path,
    lines: dict[tuple[str, ...], int],
    experiment: Experiment,
    overrides: dict[str, Any],
    index: int,
    repetition: int,
    profiled: dict[str, tuple[str, ...]],
) -> Point:
    note = f" (sweep point {overrides})" if overrides else ""
    set_by = {**profiled, **{k: ("sweep", k) for k in overrides}}
    try:
        topology = spec_from_mapping(dict(experiment.topology), "topology")
    except SpecFileError as exc:
        loc = ("topology", *exc.key.split(".")) if exc.key else ("topology",)
        raise ExperimentError(f"{_where(path, lines, loc, set_by)}: {exc}{note}") from None
    hosts = {
        p for p in (*_names("c", topology.left_delays_us), *_names("s", topology.right_delays_us))
    }
    traffic = experiment.traffic
    for kind in ("cbr", "blast", "bulk"):
        for i, flow in enumerate(getattr(traffic, kind)):
            for end in ("client", "server"):
                name = getattr(flow, end)
                if name not in hosts:
                    where = _where(path, lines, ("traffic", kind, str(i), end), set_by)
                    raise ExperimentError(
                        f"{where}: traffic.{kind}[{i}].{end}: no host {name!r}"
                        f" (hosts: {', '.join(sorted(hosts))}){note}"
                    )
    for i, host in enumerate(experiment.tcp_trace.hosts if experiment.tcp_trace else []):
        if host not in hosts:
            where = _where(path, lines, ("tcp_trace", "hosts", str(i)), set_by)
            raise ExperimentError(
                f"{where}: tcp_trace.hosts[{i}]: no host {host!r}"
                f" (hosts: {', '.join(sorted(hosts))}){note}"
            )
    calibration, users = None, None
    if traffic.web is not None:
        users = traffic.web.users
        if traffic.web.calibration is not None:
            file = traffic.web.calibration
            file = file if file.is_absolute() else path.parent / file
            try:
                calibration = load_calibration(file)
            except ValueError as exc:
                where = _where(path, lines, ("traffic", "web", "calibration"))
                raise ExperimentError(f"{where}: traffic.web.calibration: {exc}") from None
        if traffic.web.load_percent is not None and calibration is not None:
            rate_bps = traffic.web.load_rate_bps or topology.bottleneck_rate_bps
            users = users_for_load(calibration, traffic.web.load_percent / 100, rate_bps)
    name = _point_name(index, overrides, repetition, experiment.repetitions)
    return Point(
        index=index,
        name=name,
        overrides=overrides,
        repetition=repetition,
        experiment=experiment.model_copy(update={"seed": experiment.seed + repetition - 1}),
        topology=topology,
        web_users=users,
        calibration=calibration,
    )


def _names(prefix: str, delays: tuple[int, ...]) -> list[str]:
    return [f"{prefix}{i}" for i in range(1, len(delays) + 1)]
