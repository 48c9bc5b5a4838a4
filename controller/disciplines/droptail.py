"""DropTail on a port (p4src/droptail.p4): a FIFO limit decided at arrival."""

from typing import Literal

import finsy as fy
from pydantic import Field

from controller.disciplines.red import port_entry
from controller.sampler import Probe
from controller.schema import StrictModel


class DropTailConfig(StrictModel):
    """A FIFO of at most `qlen` packets."""

    discipline: Literal["droptail"]
    qlen: int = Field(ge=1)

    def probes(self) -> list[Probe]:
        """What the sampler reads for this port: occupancy and drops."""
        return [
            Probe("qlen_pkts", "register", "droptail_qlen", digest="qlen"),
            Probe("overflow_drops", "counter", "MyIngress.droptail_drops"),
        ]

    def entries(self, port: int) -> list[fy.P4TableEntry]:
        return [
            port_entry(
                "MyIngress.droptail_config",
                "MyIngress.droptail_set_limit",
                port,
                limit_pkts=self.qlen,
            )
        ]
