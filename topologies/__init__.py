"""Mininet topologies whose routers are P4 switches (topologies/README.md)."""

from topologies.dumbbell import Dumbbell, DumbbellSpec
from topologies.host_tcp import HostTcp
from topologies.p4switch import Bmv2Switch, P4AqmSwitch

__all__ = ["Bmv2Switch", "Dumbbell", "DumbbellSpec", "HostTcp", "P4AqmSwitch"]
