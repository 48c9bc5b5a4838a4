"""Mininet topologies whose routers are P4 switches (p4aqm/topology/README.md)."""

from p4aqm.topology.dumbbell import BOTTLENECK_PORT, LEFT, RIGHT, Dumbbell, DumbbellSpec
from p4aqm.topology.host_tcp import HostTcp
from p4aqm.topology.p4switch import Bmv2Switch, P4AqmSwitch

__all__ = [
    "BOTTLENECK_PORT",
    "LEFT",
    "RIGHT",
    "Bmv2Switch",
    "Dumbbell",
    "DumbbellSpec",
    "HostTcp",
    "P4AqmSwitch",
]
