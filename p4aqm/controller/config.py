"""The controller's YAML configuration, validated with pydantic.

Units are the ones a researcher writes: prefixes in CIDR, MACs in colon form,
ports as the switch numbers them. Relative file paths are taken from the
directory of the config file, so a config can travel with its programs.
"""

import json
from ipaddress import IPv4Network
from pathlib import Path
from typing import Annotated

import yaml
from finsy.proto import p4i
from google.protobuf import text_format
from pydantic import (
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

from p4aqm.controller.disciplines import AqmConfig, CbqConfig
from p4aqm.controller.schema import StrictModel

MacAddress = Annotated[
    str, StringConstraints(pattern=r"^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$", strip_whitespace=True)
]

# v1model's egress_spec is bit<9>, and BMv2 reserves 511 as the drop port.
MAX_PORT = 510


class SwitchTarget(StrictModel):
    grpc_addr: str = "127.0.0.1:9559"
    device_id: int = Field(default=0, ge=0)
    election_id: int = Field(default=1, ge=1)
    # BMv2 only (no gNMI for queues): its Thrift port for simple_switch_CLI, and the
    # packet size at which a rate in bit/s becomes its packets per second.
    thrift_port: int = Field(default=9090, ge=1, le=65535)
    # A full-size Ethernet frame: 1500 bytes of MTU and the 14-byte header.
    bmv2_packet_bytes: int = Field(default=1514, ge=64, le=9216)


class PipelineFiles(StrictModel):
    p4info: Path
    bmv2_json: Path


class Route(StrictModel):
    prefix: IPv4Network
    port: int = Field(ge=0, le=MAX_PORT)
    dst_mac: MacAddress
    src_mac: MacAddress


class LinkConfig(StrictModel):
    """The emulated link on a port: a delay line in both directions, outside the queue."""

    delay_us: int | None = Field(default=None, ge=0)
    rate_bps: int | None = Field(default=None, ge=0)


class QueueConfig(StrictModel):
    """The traffic manager's queue(s) of a port; a rate in bits/s or in packets/s."""

    rate_bps: int | None = Field(default=None, gt=0)
    rate_pps: float | None = Field(default=None, gt=0)
    depth_pkts: int | None = Field(default=None, gt=0)
    depth_bytes: int | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _one_rate(self) -> "QueueConfig":
        if self.rate_bps is not None and self.rate_pps is not None:
            raise ValueError("give rate_bps or rate_pps, not both")
        return self


class PortConfig(StrictModel):
    link: LinkConfig | None = None
    queue: QueueConfig | None = None
    aqm: AqmConfig | None = None

    @model_validator(mode="after")
    def _queue_deeper_than_aqm(self) -> "PortConfig":
        # The program must drop before the traffic manager does (port_control.py says why).
        depth = self.queue.depth_pkts if self.queue is not None else None
        if self.aqm is not None and depth is not None and depth <= self.aqm.limit_pkts:
            raise ValueError(
                f"queue.depth_pkts ({depth}) must exceed aqm.limit_pkts"
                f" ({self.aqm.limit_pkts}):"
                " the AQM's own limit must bind first"
            )
        return self

    @model_validator(mode="after")
    def _cbq_fits_port(self) -> "PortConfig":
        # CBQ shares the port's rate among its classes, so it needs one to share.
        if not isinstance(self.aqm, CbqConfig):
            return self
        # The link's rate is the line the class queues share; a queue rate alone would
        # give every class queue that rate, side by side.
        if self.link is None or not self.link.rate_bps:
            raise ValueError(
                "aqm: cbq shares the link's rate among its classes: give link.rate_bps"
            )
        queue_bps = self.queue.rate_bps if self.queue is not None else None
        self.aqm.check_port_rate(min(self.link.rate_bps, queue_bps or self.link.rate_bps))
        return self


class ControllerConfig(StrictModel):
    switch: SwitchTarget = SwitchTarget()
    pipeline: PipelineFiles
    routes: list[Route] = []
    ports: dict[Annotated[int, Field(ge=0, le=MAX_PORT)], PortConfig] = {}


class ConfigError(Exception):
    """A config problem, already phrased as `file: where: what` lines."""


def _location(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        if part == "[key]":  # pydantic's marker for a bad dict key, such as a port number
            text += " (key)"
        elif isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "(top level)"


def load_config(path: Path) -> ControllerConfig:
    try:
        raw = yaml.safe_load(path.read_text())
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config: {exc.strerror}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"{mark.line + 1}:{mark.column + 1}" if mark else "?"
        raise ConfigError(f"{path}:{where}: invalid YAML: {exc.problem}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    try:
        config = ControllerConfig.model_validate(raw)
    except ValidationError as exc:
        lines = [f"{path}: {_location(err['loc'])}: {err['msg']}" for err in exc.errors()]
        raise ConfigError("\n".join(lines)) from None
    base = path.parent
    pipeline = PipelineFiles(
        p4info=base / config.pipeline.p4info, bmv2_json=base / config.pipeline.bmv2_json
    )
    for field, file in (("p4info", pipeline.p4info), ("bmv2_json", pipeline.bmv2_json)):
        if not file.is_file():
            raise ConfigError(f"{path}: pipeline.{field}: no such file: {file}")
    _check_pipeline(path, pipeline)
    return config.model_copy(update={"pipeline": pipeline})


def _check_pipeline(path: Path, pipeline: PipelineFiles) -> None:
    """Reject unusable pipeline files here, where the config can be named, not in the client."""
    text = pipeline.p4info.read_text()
    if not text.strip():
        raise ConfigError(f"{path}: pipeline.p4info: {pipeline.p4info} is empty")
    try:
        text_format.Parse(text, p4i.P4Info())
    except text_format.ParseError as exc:
        raise ConfigError(f"{path}: pipeline.p4info: not a P4Info text protobuf: {exc}") from None
    try:
        json.loads(pipeline.bmv2_json.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: pipeline.bmv2_json: not a BMv2 JSON file: {exc}") from None
