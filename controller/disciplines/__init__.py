"""AQM disciplines a port can run, one module each; the config's `discipline` key picks.

Each discipline is a pydantic model with `discipline: Literal[name]` and
`entries(port) -> list[finsy.P4TableEntry]`, the table entries its P4 program needs, and
`probes() -> list[Probe]`, what the sampler reads for the port.
"""

from typing import Annotated

from pydantic import Field

from controller.disciplines.ared import AredConfig
from controller.disciplines.cbt import CbtConfig
from controller.disciplines.droptail import DropTailConfig
from controller.disciplines.fred import FredConfig
from controller.disciplines.red import RedConfig

AqmConfig = Annotated[
    AredConfig | CbtConfig | DropTailConfig | FredConfig | RedConfig,
    Field(discriminator="discipline"),
]

__all__ = ["AqmConfig", "AredConfig", "CbtConfig", "DropTailConfig", "FredConfig", "RedConfig"]
