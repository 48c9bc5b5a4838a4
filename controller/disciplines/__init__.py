"""AQM disciplines a port can run, one module each; the config's `discipline` key picks.

Each discipline is a pydantic model with `discipline: Literal[name]` and
`entries(port) -> list[finsy.P4TableEntry]`, the table entries its P4 program needs.
"""

from typing import Annotated

from pydantic import Field

from controller.disciplines.droptail import DropTailConfig
from controller.disciplines.red import RedConfig

AqmConfig = Annotated[DropTailConfig | RedConfig, Field(discriminator="discipline")]

__all__ = ["AqmConfig", "DropTailConfig", "RedConfig"]
