"""Mininet topologies whose routers are `p4aqm switch` processes (topologies/README.md)."""

from topologies.dumbbell import Dumbbell, DumbbellSpec, HostTcp
from topologies.p4switch import P4AqmSwitch

__all__ = ["Dumbbell", "DumbbellSpec", "HostTcp", "P4AqmSwitch"]
