"""AQM disciplines a port can run, one module each; the config's `discipline` key picks.

Each discipline is a pydantic model with `discipline: Literal[name]` and
`entries(port) -> list[finsy.P4TableEntry]`, the table entries its P4 program needs.
"""

from controller.disciplines.red import RedConfig

AqmConfig = RedConfig

__all__ = ["AqmConfig", "RedConfig"]
