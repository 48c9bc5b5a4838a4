"""CoDel on a port (p4src/codel.p4): its config, and the table entries the model computes.

    aqm:
      discipline: codel
      target_us: 5000
      interval_us: 100000
      ecn: false
      limit_pkts: 1000

The data plane takes target and interval in microseconds, and the control law
interval / sqrt(count) as a range table on count (p4aqm/models/codel.py). Values the
program's registers cannot hold are refused when the config is loaded, naming the field.
"""

from typing import Literal

import finsy as fy
from pydantic import Field, model_validator

from p4aqm.controller.disciplines.red import OCCUPANCY_PROBE, RANGE_PRIORITY, port_entry
from p4aqm.controller.sampler import Probe
from p4aqm.controller.schema import StrictModel
from p4aqm.models.codel import CodelParams, CodelTables
from p4aqm.schema import Column

# The egress control law table's keys (codel.p4's MyEgress locals).
LAW_PORT_KEY = "port"
LAW_COUNT_KEY = "count"


class CodelConfig(StrictModel):
    """CoDel on a port's queue, RFC 8289's defaults."""

    discipline: Literal["codel"] = "codel"
    target_us: int = Field(default=5000, ge=1)
    interval_us: int = Field(default=100_000, ge=1)
    ecn: bool = False
    limit_pkts: int = Field(default=1000, ge=1)

    @model_validator(mode="after")
    def _valid_codel(self) -> "CodelConfig":
        self.params()  # the model's own checks, reported at this field
        return self

    def params(self) -> CodelParams:
        return CodelParams(
            target_us=self.target_us,
            interval_us=self.interval_us,
            ecn=self.ecn,
            limit_pkts=self.limit_pkts,
        )

    def probes(self) -> list[Probe]:
        """The last sojourn time, the dropping state and count, marks and drops."""
        return [
            OCCUPANCY_PROBE,
            Probe(Column.SOJOURN_US, "register", "codel_sojourn_us"),
            Probe(Column.DROPPING, "register", "codel_dropping"),
            Probe(Column.DROP_COUNT, "register", "codel_count"),
            Probe("marks", "counter", "MyEgress.marks"),
            Probe("drops", "counter", "MyEgress.drops"),
            Probe("overflow_drops", "counter", "MyIngress.overflow_drops"),
        ]

    def entries(self, port: int) -> list[fy.P4TableEntry]:
        tables = CodelTables.from_params(self.params())
        params = port_entry(
            "MyIngress.codel_config",
            "MyIngress.codel_set_params",
            port,
            target_us=tables.target_us,
            interval_us=tables.interval_us,
            limit_pkts=tables.limit_pkts,
            ecn_enabled=int(tables.ecn),
        )
        law = [
            fy.P4TableEntry(
                "MyEgress.codel_control_law",
                match=fy.Match({LAW_PORT_KEY: port, LAW_COUNT_KEY: f"{e.low}...{e.high}"}),
                action=fy.Action("MyEgress.set_control_law", law=e.value),
                priority=RANGE_PRIORITY,
            )
            for e in tables.law_table
        ]
        return [params, *law]
