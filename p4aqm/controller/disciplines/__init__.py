"""AQM disciplines a port can run, one module each; the config's `discipline` key picks.

Each discipline is a pydantic model with `discipline: Literal[name]` and
`entries(port) -> list[finsy.P4TableEntry]`, the table entries its P4 program needs, and
`probes() -> list[Probe]`, what the sampler reads for the port.
"""

from typing import Annotated

from pydantic import Field

from p4aqm.controller.disciplines.ared import AredConfig
from p4aqm.controller.disciplines.cbt import CbtConfig
from p4aqm.controller.disciplines.codel import CodelConfig
from p4aqm.controller.disciplines.droptail import DropTailConfig
from p4aqm.controller.disciplines.fred import FredConfig
from p4aqm.controller.disciplines.pie import PieConfig
from p4aqm.controller.disciplines.red import RedConfig

AqmConfig = Annotated[
    AredConfig | CbtConfig | CodelConfig | DropTailConfig | FredConfig | PieConfig | RedConfig,
    Field(discriminator="discipline"),
]

__all__ = [
    "AqmConfig",
    "AredConfig",
    "CbtConfig",
    "CodelConfig",
    "DropTailConfig",
    "FredConfig",
    "PieConfig",
    "RedConfig",
]
