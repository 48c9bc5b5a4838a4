"""DropTail on a port (p4src/droptail.p4): a FIFO limit decided at arrival."""

from typing import Literal

import finsy as fy
from pydantic import Field

from controller.sampler import Probe
from controller.schema import StrictModel

PORT_KEY = "standard_metadata.egress_spec"


class DropTailConfig(StrictModel):
    """A FIFO of at most `qlen` packets."""

    discipline: Literal["droptail"]
    qlen: int = Field(ge=1)

    def probes(self) -> list[Probe]:
        """What the sampler reads for this port: occupancy and drops."""
        return [
            Probe("qlen_pkts", "register", "droptail_qlen"),
            Probe("overflow_drops", "counter", "MyIngress.droptail_drops"),
        ]

    def entries(self, port: int) -> list[fy.P4TableEntry]:
        return [
            fy.P4TableEntry(
                "MyIngress.droptail_config",
                match=fy.Match({PORT_KEY: port}),
                action=fy.Action("MyIngress.droptail_set_limit", limit_pkts=self.qlen),
            )
        ]
