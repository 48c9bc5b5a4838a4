"""The controller: typed configs of a switch's routes, ports and AQM disciplines, and the
router handle that applies them over P4Runtime and gNMI and records the queue monitor."""

from p4aqm.controller.config import (
    ControllerConfig,
    LinkConfig,
    PipelineFiles,
    PortConfig,
    QueueConfig,
    Route,
    SwitchTarget,
    load_config,
)
from p4aqm.controller.disciplines import (
    AqmConfig,
    AredConfig,
    CbqConfig,
    CbtConfig,
    CodelConfig,
    DropTailConfig,
    FredConfig,
    PieConfig,
    RedConfig,
)
from p4aqm.controller.emulation import EmulationFidelity
from p4aqm.controller.recording import MonitorRecording
from p4aqm.controller.router import Changes, PortState, Router

__all__ = [
    "AqmConfig",
    "AredConfig",
    "CbqConfig",
    "CbtConfig",
    "Changes",
    "CodelConfig",
    "ControllerConfig",
    "DropTailConfig",
    "EmulationFidelity",
    "FredConfig",
    "LinkConfig",
    "MonitorRecording",
    "PieConfig",
    "PipelineFiles",
    "PortConfig",
    "PortState",
    "QueueConfig",
    "RedConfig",
    "Route",
    "Router",
    "SwitchTarget",
    "load_config",
]
