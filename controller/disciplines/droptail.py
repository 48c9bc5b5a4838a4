"""DropTail on a port (p4src/droptail.p4): a FIFO limit decided at arrival."""

from typing import Literal

import finsy as fy
from pydantic import Field

from controller.schema import StrictModel

PORT_KEY = "standard_metadata.egress_spec"


class DropTailConfig(StrictModel):
    """A FIFO of at most `qlen` packets."""

    discipline: Literal["droptail"]
    qlen: int = Field(ge=1)

    def entries(self, port: int) -> list[fy.P4TableEntry]:
        return [
            fy.P4TableEntry(
                "MyIngress.droptail_config",
                match=fy.Match({PORT_KEY: port}),
                action=fy.Action("MyIngress.droptail_set_limit", limit_pkts=self.qlen),
            )
        ]
