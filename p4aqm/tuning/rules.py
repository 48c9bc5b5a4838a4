"""The tuning daemon's rule file: WAD's config, one rule per path, first match wins.

    rules:
      - name: ornl-psc                       # WAD's "bob": a name for the rule
        match: {remote_addr: 10.0.2.0/24, remote_port: 5201}   # any field left out: any
        set:
          sndbuf_bytes: 8000000              # WAD's sndbuf (SO_SNDBUF)
          rcvbuf_bytes: 8000000              # WAD's rcvbuf (SO_RCVBUF)
          congestion_control: reno           # TCP_CONGESTION
          initcwnd_pkts: 10                  # TCP_BPF_IW (active opens)
          cwnd_clamp_pkts: 500               # TCP_BPF_SNDCWND_CLAMP
          delack_max_us: 2000                # a ceiling on the delayed-ACK timer
          rto_min_us: 50000                  # TCP_BPF_RTO_MIN
          ecn: true                          # ask for ECN in the SYN (NEEDS_ECN)
          wadai: 6                           # WAD's additive increase: segments per RTT
          wadmd: 0.3                         # WAD's decrease: share of cwnd given up

Buffers are set when the connection opens (before the SYN on the active side, when it is
established on the passive one); as with setsockopt, the kernel doubles them for its
bookkeeping and bounds them by net.core.{w,r}mem_max unless the rule is applied from BPF,
which is not bounded. wadai and wadmd give the rule a congestion control of its own:
Reno with that increase and decrease, loaded through BPF struct_ops (p4aqm/tuning/aimd.py).
WAD's other knobs have no per-connection equivalent on this kernel and are refused by name
(NOT_TUNABLE).
"""

import ipaddress
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from p4aqm.yaml_lines import YamlFileError, line_of, read_mapping

# WAD's knobs (the seed's config line) that no socket option or sock_ops callback of this
# kernel sets per connection, with why.
NOT_TUNABLE = {
    "maxssth": "Linux has no per-connection ceiling on ssthresh (RFC 3742's max_ssthresh)",
    "reorder": "the reordering threshold is per namespace (net.ipv4.tcp_reordering)",
    "sendstall": "send stalls come from the interface's queue length (txqueuelen), per interface",
    "floyd": "Floyd's AIMD is HighSpeed TCP (tcp_highspeed), a kernel module this machine"
    " does not have; wadai and wadmd give a fixed increase and decrease instead",
    "divide": "dividing a buffer among concurrent flows needs the daemon to watch every"
    " flow, which WAD's mode 1 did with Web100",
    "delack": "turning delayed ACKs off (TCP_QUICKACK) is not among the options sock_ops"
    " may set; delack_max_us bounds the delayed-ACK timer instead",
    "mode": "WAD's dynamic modes polled Web100 and NTAF, which Linux does not have",
}
CONGESTION_CONTROL_BYTES = 16  # TCP_CA_NAME_MAX


class RulesError(ValueError):
    pass


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Match(Strict):
    """Which connections a rule tunes, seen from the tuned host: its own address and port
    (local) and the peer's (remote); addresses as prefixes, port 0 for any."""

    local_addr: ipaddress.IPv4Network = ipaddress.IPv4Network("0.0.0.0/0")
    local_port: int = Field(0, ge=0, le=65535)
    remote_addr: ipaddress.IPv4Network = ipaddress.IPv4Network("0.0.0.0/0")
    remote_port: int = Field(0, ge=0, le=65535)


class Settings(Strict):
    sndbuf_bytes: int | None = Field(None, ge=4096, le=1 << 30)
    rcvbuf_bytes: int | None = Field(None, ge=4096, le=1 << 30)
    congestion_control: str | None = Field(
        None, min_length=1, max_length=CONGESTION_CONTROL_BYTES - 1
    )
    initcwnd_pkts: int | None = Field(None, ge=1, le=1000)
    cwnd_clamp_pkts: int | None = Field(None, ge=2, le=1 << 20)
    delack_max_us: int | None = Field(None, ge=0, le=1_000_000)
    rto_min_us: int | None = Field(None, ge=1_000, le=60_000_000)
    # Only asking for ECN: whether a connection may not use it is the namespace's
    # net.ipv4.tcp_ecn, which no per-connection option overrides.
    ecn: Literal[True] | None = None
    # WAD's wadai (segments added per round trip in congestion avoidance; Reno: 1) and
    # wadmd (the share of cwnd given up at a congestion event; Reno: 0.5).
    wadai: int | None = Field(None, ge=1, le=100)
    wadmd: float | None = Field(None, gt=0, lt=1)

    @field_validator("congestion_control")
    @classmethod
    def known_name(cls, name: str | None) -> str | None:
        if name is not None and not name.isidentifier():
            raise ValueError(f"{name!r} is not a congestion control's name")
        return name

    @model_validator(mode="after")
    def one_congestion_control(self) -> "Settings":
        if self.congestion_control is not None and (self.wadai or self.wadmd):
            raise ValueError(
                "congestion_control: give none with wadai or wadmd, which make their own"
                " (Reno with that increase and decrease)"
            )
        return self

    @property
    def aimd(self) -> tuple[int, float] | None:
        """(wadai, wadmd), Reno's where one is left out; None if neither is given."""
        if self.wadai is None and self.wadmd is None:
            return None
        return (self.wadai or 1, self.wadmd or 0.5)


class Rule(Strict):
    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    match: Match = Match()
    set: Settings


class Rules(Strict):
    rules: list[Rule] = Field(min_length=1, max_length=64)


def load_rules(path: Path) -> Rules:
    """The rules of a file; a RulesError names the file, the line and the field."""
    try:
        document, lines = read_mapping(path, "rules: [...]")
    except YamlFileError as exc:
        raise RulesError(str(exc)) from None
    _refuse_untunable(path, lines, document)
    try:
        return Rules.model_validate(document)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(str(x) for x in err["loc"])
        field = ".".join(loc)
        raise RulesError(f"{line_of(path, lines, loc)}: {field}: {err['msg']}") from None


def _refuse_untunable(
    path: Path, lines: dict[tuple[str, ...], int], document: dict[str, Any]
) -> None:
    rules = document.get("rules")
    for i, rule in enumerate(rules if isinstance(rules, list) else []):
        settings = rule.get("set") if isinstance(rule, dict) else None
        for knob in settings if isinstance(settings, dict) else {}:
            if knob in NOT_TUNABLE:
                loc = ("rules", str(i), "set", str(knob))
                raise RulesError(
                    f"{line_of(path, lines, loc)}: rules.{i}.set.{knob}: cannot be tuned per"
                    f" connection on this kernel: {NOT_TUNABLE[knob]}"
                )
