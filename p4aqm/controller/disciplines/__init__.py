"""AQM disciplines a port can run, one module each; the config's `discipline` key picks.

Each discipline is a pydantic model with `discipline: Literal[name]` and
`entries(port) -> list[finsy.P4TableEntry]`, the table entries its P4 program needs, and
`probes() -> list[Probe]`, what the sampler reads for the port. CBQ alone schedules among
the switch's priority queues (class_queues, priority_queues); the others use one queue.
"""

from typing import Annotated

from pydantic import Field

from p4aqm.controller.disciplines.ared import AredConfig
from p4aqm.controller.disciplines.cbq import CbqConfig, ClassQueue
from p4aqm.controller.disciplines.cbt import CbtConfig
from p4aqm.controller.disciplines.codel import CodelConfig
from p4aqm.controller.disciplines.droptail import DropTailConfig
from p4aqm.controller.disciplines.fred import FredConfig
from p4aqm.controller.disciplines.pie import PieConfig
from p4aqm.controller.disciplines.red import RedConfig

AqmConfig = Annotated[
    AredConfig
    | CbqConfig
    | CbtConfig
    | CodelConfig
    | DropTailConfig
    | FredConfig
    | PieConfig
    | RedConfig,
    Field(discriminator="discipline"),
]


def priority_queues(aqm: AqmConfig | None) -> int:
    """The priority queues per port a switch needs to run `aqm`."""
    return aqm.priority_queues() if isinstance(aqm, CbqConfig) else 1


def class_queues(aqm: AqmConfig | None) -> list[ClassQueue]:
    """The priority queues `aqm` sets up one by one (none: the port's settings serve)."""
    return aqm.class_queues() if isinstance(aqm, CbqConfig) else []


__all__ = [
    "AqmConfig",
    "AredConfig",
    "CbqConfig",
    "CbtConfig",
    "ClassQueue",
    "CodelConfig",
    "DropTailConfig",
    "FredConfig",
    "PieConfig",
    "RedConfig",
    "class_queues",
    "priority_queues",
]
