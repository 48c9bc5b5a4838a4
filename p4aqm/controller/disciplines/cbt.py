"""CBT on a port (p4src/cbt.p4): class-based thresholds (Parris, Jeffay, Smith 1999).

The config is RED's (for the TCP class; w_q, limit_pkts and the idle clock are the port's and
serve every class) plus a threshold per non-TCP class and the classifier's rules:

    aqm:
      discipline: cbt
      min_th: 15
      max_th: 30
      max_p: 0.1
      w_q: 0.001953125
      limit_pkts: 60
      marked_th: 10
      unmarked_th: 2
      classes:
        - {traffic_class: marked, protocol: 17, dscp: 46}

Rules are tried in order, the first that matches wins; a field left out matches
anything. After the rules, TCP (protocol 6) is the TCP class, and everything else is
unmarked non-TCP, so only traffic a rule names can reach the marked class's share.
"""

from ipaddress import IPv4Network
from typing import Literal

import finsy as fy
from pydantic import Field, model_validator

from p4aqm.controller.disciplines.red import (
    PORT_KEY,
    RedConfig,
    decay_entries,
    ramp_entries,
    red_params_entry,
)
from p4aqm.controller.sampler import Probe
from p4aqm.controller.schema import StrictModel
from p4aqm.models.cbt import CbtParams, CbtTables, TrafficClass
from p4aqm.models.fixed_point import AVG_FRAC_BITS
from p4aqm.schema import Column, class_column

IP_PROTO_TCP = 6
# cbt.p4 keeps per-class state and counters in cell port * CELLS_PER_PORT + class, and
# the port's total occupancy in cell port * CELLS_PER_PORT + TOTAL_CELL.
CELLS_PER_PORT = 4
TOTAL_CELL = 3
CLASS_COUNTERS = ("marks", "early_drops", "forced_drops", "threshold_drops", "overflow_drops")
# The classifier holds 4096 entries for all ports; one per port is the TCP fallback.
MAX_RULES = 4095


class CbtClassRule(StrictModel):
    """One classifier rule: the packets whose fields match all of those given."""

    traffic_class: Literal["tcp", "marked", "unmarked"]
    protocol: int | None = Field(default=None, ge=0, le=255)
    dscp: int | None = Field(default=None, ge=0, le=63)
    src: IPv4Network | None = None
    dst: IPv4Network | None = None
    # L4 ports of TCP and UDP; packets without them (other protocols, IPv4 options,
    # later fragments) match only a rule that leaves both out, or gives 0.
    src_port: int | None = Field(default=None, ge=0, le=65535)
    dst_port: int | None = Field(default=None, ge=0, le=65535)

    def match(self, port: int) -> fy.Match:
        fields: dict[str, int | str] = {PORT_KEY: port}
        for key, value in (
            ("hdr.ipv4.protocol", self.protocol),
            ("hdr.ipv4.dscp", self.dscp),
            ("meta.l4_src_port", self.src_port),
            ("meta.l4_dst_port", self.dst_port),
        ):
            if value is not None:
                fields[key] = value  # an exact value is a ternary match with a full mask
        for key, network in (("hdr.ipv4.src_addr", self.src), ("hdr.ipv4.dst_addr", self.dst)):
            # A /0 prefix is a wildcard, and P4Runtime wants wildcards left out.
            if network is not None and network.prefixlen > 0:
                fields[key] = network.with_prefixlen
        return fy.Match(fields)


class CbtConfig(RedConfig):
    """CBT on a port's queue: RED's settings for the TCP class and the port, the non-TCP
    thresholds in packets of class average, and the classifier's rules."""

    discipline: Literal["cbt"] = "cbt"  # type: ignore[assignment]
    marked_th: float = Field(ge=0)
    unmarked_th: float = Field(ge=0)
    classes: list[CbtClassRule] = Field(default=[], max_length=MAX_RULES)

    def probes(self) -> list[Probe]:
        """The port's occupancy, then per class (in cell port * 4 + class) its
        occupancy, average, and the decisions it met."""
        probes = [
            Probe(
                Column.OCCUPANCY_PKTS,
                "register",
                "aqm_occupancy",
                digest="occupancy",
                stride=CELLS_PER_PORT,
                offset=TOTAL_CELL,
            )
        ]
        for c in TrafficClass:
            name = c.name.lower()
            per_class = {"stride": CELLS_PER_PORT, "offset": c.value}
            probes += [
                Probe(
                    class_column(name, Column.OCCUPANCY_PKTS),
                    "register",
                    "aqm_occupancy",
                    **per_class,
                ),
                Probe(
                    class_column(name, Column.AVG_PKTS),
                    "register",
                    "red_avg",
                    2.0**-AVG_FRAC_BITS,
                    digest="avg",
                    traffic_class=c.value,
                    **per_class,
                ),
                *(
                    Probe(f"{name}_{counter}", "counter", f"MyIngress.cbt_{counter}", **per_class)
                    for counter in CLASS_COUNTERS
                ),
            ]
        return probes

    @model_validator(mode="after")
    def _valid_cbt(self) -> "CbtConfig":
        self.cbt_params()  # the model's own checks, reported at this field
        return self

    def cbt_params(self) -> CbtParams:
        return CbtParams(
            tcp=self.params(), marked_th_pkts=self.marked_th, unmarked_th_pkts=self.unmarked_th
        )

    def entries(self, port: int) -> list[fy.P4TableEntry]:
        tables = CbtTables.from_params(self.cbt_params())
        red = tables.red
        params = red_params_entry(
            "MyIngress.cbt_config",
            "MyIngress.cbt_set_params",
            port,
            red,
            marked_th=tables.marked_th,
            unmarked_th=tables.unmarked_th,
        )
        # P4Runtime: the higher priority wins, so the first rule gets the highest and
        # the TCP fallback, priority 1, loses to every rule.
        rules = [
            (rule.match(port), TrafficClass[rule.traffic_class.upper()]) for rule in self.classes
        ]
        tcp = fy.Match({PORT_KEY: port, "hdr.ipv4.protocol": IP_PROTO_TCP})
        rules.append((tcp, TrafficClass.TCP))
        classifier = [
            fy.P4TableEntry(
                "MyIngress.cbt_class",
                match=match,
                action=fy.Action("MyIngress.cbt_set_class", traffic_class=int(traffic_class)),
                priority=len(rules) - index,
            )
            for index, (match, traffic_class) in enumerate(rules)
        ]
        return [params, *classifier, *ramp_entries(port, red), *decay_entries(port, red)]
