"""CBQ on a port (p4src/cbq.p4): class-based queueing (Floyd & Jacobson 1995), the upper
bound of Parris, Jeffay and Smith's CBT study, as a weighted class scheduler on the
switch's priority queues:

    aqm:
      discipline: cbq
      default_priority: 0
      classes:
        - {traffic_class: marked, protocol: 17, dscp: 46, priority: 2,
           rate_bps: 1500000, limit_pkts: 10}
        - {traffic_class: tcp, protocol: 6, priority: 1, rate_bps: 7000000, limit_pkts: 60}
        - {traffic_class: other, priority: 0, rate_bps: 1500000, limit_pkts: 10, borrow: true}

Each class is a priority queue of the port (the switch runs with --priority-queues, as many
as priority_queues() says). The traffic manager, ours and BMv2's alike, spaces each queue's
departures at the queue's own rate and sends, among the queues with a packet due, the
highest priority first. So a class's queue gets its `rate_bps` as its rate: it is sent
before every lower class and never above its share, so whatever the higher classes do, a
class has its share as long as the shares add up to no more than the port's rate (the
port's config checks that). A class that borrows (ALTQ's word) has no rate of its own: it
takes what the higher classes leave, up to the port's rate. Only the lowest class may
borrow: a borrowing class above another would take that class's share. The classes'
limits are the program's, counted per class; the queues are set deeper (port_control.py).

Rules are tried in the order of `classes`, the first that matches wins; a field left out
matches anything. Packets no rule matches go to the class of `default_priority`.
"""

from dataclasses import dataclass
from typing import Annotated, Literal

import finsy as fy
from pydantic import Field, StringConstraints, model_validator

from p4aqm.controller.disciplines.red import PORT_KEY
from p4aqm.controller.sampler import Probe
from p4aqm.controller.schema import StrictModel
from p4aqm.models.fixed_point import REGISTER_MAX
from p4aqm.schema import Column, class_column

# v1model's standard_metadata.priority is bit<3>; cbq.p4 keeps each class's count and
# drops in cell port * CELLS_PER_PORT + priority.
MAX_PRIORITY_QUEUES = 8
CELLS_PER_PORT = MAX_PRIORITY_QUEUES
# The classifier holds 4096 entries for all ports; one per port is the default class.
MAX_RULES = 4095

ClassName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*$")]


@dataclass(frozen=True)
class ClassQueue:
    """What the traffic manager's queue of one class is given: its rate (None: the port's,
    for a borrowing class) and the class's limit, which the queue's depth must exceed."""

    priority: int
    rate_bps: int | None
    limit_pkts: int


class CbqClass(StrictModel):
    """One class: the packets whose protocol and DSCP match those given, its priority
    queue, its share of the port and its limit."""

    traffic_class: ClassName
    protocol: int | None = Field(default=None, ge=0, le=255)
    dscp: int | None = Field(default=None, ge=0, le=63)
    priority: int = Field(ge=0, lt=MAX_PRIORITY_QUEUES)
    rate_bps: int = Field(gt=0)
    limit_pkts: int = Field(ge=1, le=REGISTER_MAX)
    borrow: bool = False

    def match(self, port: int) -> fy.Match:
        fields: dict[str, int] = {PORT_KEY: port}
        for key, value in (("hdr.ipv4.protocol", self.protocol), ("hdr.ipv4.dscp", self.dscp)):
            if value is not None:
                fields[key] = value  # an exact value is a ternary match with a full mask
        return fy.Match(fields)

    def action(self) -> fy.Action:
        return fy.Action(
            "MyIngress.cbq_set_class", priority=self.priority, limit_pkts=self.limit_pkts
        )


class CbqConfig(StrictModel):
    """CBQ on a port: its classes, highest priority first in service, and the class of
    the packets no rule matches."""

    discipline: Literal["cbq"] = "cbq"
    classes: list[CbqClass] = Field(min_length=1, max_length=MAX_RULES)
    default_priority: int = Field(ge=0, lt=MAX_PRIORITY_QUEUES)

    @property
    def limit_pkts(self) -> int:
        """The largest class limit: the port's queues must be deeper than it."""
        return max(c.limit_pkts for c in self.classes)

    def priority_queues(self) -> int:
        """The priority queues per port the switch needs for these classes."""
        return max(c.priority for c in self.classes) + 1

    def class_queues(self) -> list[ClassQueue]:
        return [
            ClassQueue(c.priority, None if c.borrow else c.rate_bps, c.limit_pkts)
            for c in self.classes
        ]

    def check_port_rate(self, port_rate_bps: int) -> None:
        """Raise ValueError unless the shares fit in the port's rate: otherwise the lowest
        class could not have its share, and CBQ would bound nothing."""
        total_bps = sum(c.rate_bps for c in self.classes)
        if total_bps > port_rate_bps:
            shares = ", ".join(f"{c.traffic_class} {c.rate_bps}" for c in self.classes)
            raise ValueError(
                f"aqm.classes: the rate_bps of the classes add up to {total_bps} bit/s"
                f" ({shares}), above the port's {port_rate_bps} bit/s"
            )

    @model_validator(mode="after")
    def _valid_classes(self) -> "CbqConfig":
        _check_unique(self.classes)
        priorities = {c.priority: c.traffic_class for c in self.classes}
        if self.default_priority not in priorities:
            raise ValueError(
                f"default_priority: {self.default_priority} is no class's priority"
                f" (classes: {_listing(self.classes)})"
            )
        lowest = min(priorities)
        for c in self.classes:
            if c.borrow and c.priority != lowest:
                raise ValueError(
                    f"classes: {c.traffic_class} borrows but is not the lowest priority"
                    f" ({priorities[lowest]}, {lowest}): sent first, it would take the"
                    " shares of the classes below it"
                )
        return self

    def probes(self) -> list[Probe]:
        """Per class (cell port * 8 + priority): its occupancy and its drops."""
        probes = []
        for c in self.classes:
            per_class = {"stride": CELLS_PER_PORT, "offset": c.priority}
            probes += [
                Probe(
                    class_column(c.traffic_class, Column.OCCUPANCY_PKTS),
                    "register",
                    "aqm_occupancy",
                    digest="occupancy",
                    traffic_class=c.priority,
                    **per_class,
                ),
                Probe(
                    f"{c.traffic_class}_overflow_drops",
                    "counter",
                    "MyIngress.cbq_drops",
                    **per_class,
                ),
            ]
        return probes

    def entries(self, port: int) -> list[fy.P4TableEntry]:
        """The rules in order, then the default class for whatever they leave."""
        default = next(c for c in self.classes if c.priority == self.default_priority)
        rules = [(c.match(port), c.action()) for c in self.classes]
        rules.append((fy.Match({PORT_KEY: port}), default.action()))
        # P4Runtime: the higher priority wins, so the first rule gets the highest and the
        # default, priority 1, loses to every rule.
        return [
            fy.P4TableEntry(
                "MyIngress.cbq_class", match=match, action=action, priority=len(rules) - index
            )
            for index, (match, action) in enumerate(rules)
        ]


def _listing(classes: list[CbqClass]) -> str:
    return ", ".join(f"{c.traffic_class} {c.priority}" for c in classes)


def _check_unique(classes: list[CbqClass]) -> None:
    for field in ("traffic_class", "priority"):
        seen: set[object] = set()
        for c in classes:
            value = getattr(c, field)
            if value in seen:
                raise ValueError(
                    f"classes: two classes have {field} {value} (classes: {_listing(classes)});"
                    " each class is a queue of its own"
                )
            seen.add(value)
