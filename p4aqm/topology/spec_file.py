"""A dumbbell described in YAML: the keys are DumbbellSpec's fields, with the same names.

    bottleneck_rate_bps: 10000000
    left_to_right_depth_pkts: 100
    left_to_right_aqm: {discipline: red, min_th: 30, max_th: 90, max_p: 0.1}
    host_tcp: {congestion_control: cubic, initcwnd: 3}
    host_tcp_by_name: {c1: {congestion_control: reno}}
    delay_layout: {kind: uniform, clients: 10, servers: 3, rtt_min_us: 7000,
                   rtt_max_us: 137000, seed: 1}

`delay_layout` of kind `uniform` draws the access delays (DumbbellSpec.uniform_rtts);
kind `tcpeval` (the default) keeps left_delays_us and right_delays_us.
"""

from pathlib import Path
from typing import Any

import yaml
from pydantic import TypeAdapter, ValidationError

from p4aqm.topology.dumbbell import DumbbellSpec

_UNIFORM_KEYS = {"kind", "clients", "servers", "rtt_min_us", "rtt_max_us", "seed"}


class SpecFileError(ValueError):
    def __init__(self, message: str, key: str = "") -> None:
        super().__init__(message)
        self.key = key  # the dotted field it names, where there is one


def spec_from_mapping(data: dict[str, Any], where: str) -> DumbbellSpec:
    """A DumbbellSpec from a mapping; errors name `where` and the key."""
    data = dict(data)
    layout = data.pop("delay_layout", None) or {"kind": "tcpeval"}
    if not isinstance(layout, dict) or layout.get("kind") not in ("tcpeval", "uniform"):
        raise SpecFileError(f"{where}: delay_layout.kind: give tcpeval or uniform")
    try:
        if layout["kind"] == "uniform":
            unknown = set(layout) - _UNIFORM_KEYS
            if unknown:
                raise SpecFileError(f"{where}: delay_layout: unknown keys {sorted(unknown)}")
            for key in ("left_delays_us", "right_delays_us"):
                if key in data:
                    raise SpecFileError(f"{where}: {key}: a uniform layout draws the delays")
            params = {k: v for k, v in layout.items() if k != "kind"}
            base = TypeAdapter(DumbbellSpec).validate_python(data)
            fields = {k: getattr(base, k) for k in data}
            spec = DumbbellSpec.uniform_rtts(**params, **fields)
        else:
            spec = TypeAdapter(DumbbellSpec).validate_python(data)
        spec.check()
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(x) for x in err["loc"])
        raise SpecFileError(f"{where}: {key}: {err['msg']}", key) from None
    except (ValueError, TypeError) as exc:
        if isinstance(exc, SpecFileError):
            raise
        raise SpecFileError(f"{where}: {exc}", str(exc).split(":", 1)[0].split()[0]) from None
    return spec


def read_mapping(path: Path) -> dict[str, Any]:
    """The YAML file's top-level mapping; errors name the file."""
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except OSError as exc:
        raise SpecFileError(f"{path}: cannot read: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise SpecFileError(f"{path}: invalid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise SpecFileError(f"{path}: expected a mapping of DumbbellSpec fields")
    return data


def load_spec(path: Path) -> DumbbellSpec:
    return spec_from_mapping(read_mapping(path), str(path))
