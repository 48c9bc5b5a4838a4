"""DropTail on a port (p4src/droptail.p4): a FIFO limit decided at arrival."""

from typing import Literal

import finsy as fy
from pydantic import Field

from p4aqm.controller.disciplines.red import OCCUPANCY_PROBE, port_entry
from p4aqm.controller.sampler import Probe
from p4aqm.controller.schema import StrictModel
from p4aqm.models.fixed_point import REGISTER_MAX


class DropTailConfig(StrictModel):
    """A FIFO of at most `limit_pkts` packets."""

    discipline: Literal["droptail"] = "droptail"
    limit_pkts: int = Field(ge=1, le=REGISTER_MAX)

    def probes(self) -> list[Probe]:
        """What the sampler reads for this port: occupancy and drops."""
        return [
            OCCUPANCY_PROBE,
            Probe("overflow_drops", "counter", "MyIngress.droptail_drops"),
        ]

    def entries(self, port: int) -> list[fy.P4TableEntry]:
        return [
            port_entry(
                "MyIngress.droptail_config",
                "MyIngress.droptail_set_limit",
                port,
                limit_pkts=self.limit_pkts,
            )
        ]
