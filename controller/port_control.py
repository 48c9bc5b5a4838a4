"""Queues and links set at run time over the switch's gNMI service (p4switch/README.md).

P4Runtime has no message for a queue's rate or a link's delay; `p4aqm switch` serves
them as gNMI paths under /p4aqm on the same gRPC port, and finsy's GNMIClient sets them.
"""

from finsy import GNMIClient, GNMIPath

from controller.config import PortConfig

_QUEUE_LEAVES = ("rate_bps", "rate_pps", "depth_packets", "depth_bytes")
_LINK_LEAVES = ("delay_us", "rate_bps")


def _leaf(name: str) -> str:
    return name.replace("_", "-")


def port_updates(ports: dict[int, PortConfig]) -> list[tuple[GNMIPath, int | float]]:
    updates: list[tuple[GNMIPath, int | float]] = []
    for port, config in sorted(ports.items()):
        base = f"/p4aqm/ports/port[id={port}]"
        if config.queue is not None:
            for name in _QUEUE_LEAVES:
                value = getattr(config.queue, name)
                if value is not None:
                    path = f"{base}/queues/queue[id=*]/config/{_leaf(name)}"
                    updates.append((GNMIPath(path), value))
        if config.link is not None:
            for name in _LINK_LEAVES:
                value = getattr(config.link, name)
                if value is not None:
                    updates.append((GNMIPath(f"{base}/link/config/{_leaf(name)}"), value))
    return updates


async def apply_ports(grpc_addr: str, ports: dict[int, PortConfig]) -> int:
    """Set every queue and link leaf the config names; return how many were set."""
    updates = port_updates(ports)
    if updates:
        async with GNMIClient(grpc_addr) as client:
            await client.set(update=updates)
    return len(updates)
