"""Queues and links set at run time over the switch's gNMI service (p4switch/README.md).

P4Runtime has no message for a queue's rate or a link's delay; `p4aqm switch` serves
them as gNMI paths under /p4aqm on the same gRPC port, and finsy's GNMIClient sets them.

An AQM program counts the packets it admits and uncounts them when they leave. If the
traffic manager dropped one it had admitted, the count would stay too high for good: so
the queue must be deeper than the program's limit. A port with an AQM and no depth of
its own gets one, QUEUE_HEADROOM_PKTS above the limit (room for packets the program
does not count, such as ARP).
"""

import sys

from finsy import GNMIClient, GNMIPath
from finsy.gnmiclient import GNMIClientError

from controller.config import PortConfig

QUEUE_HEADROOM_PKTS = 64

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


def aqm_depths(ports: dict[int, PortConfig]) -> dict[int, int]:
    """Queue depths (packets) for the ports with an AQM whose config gives no depth."""
    depths = {}
    for port, config in sorted(ports.items()):
        queue = config.queue
        if config.aqm is None or (queue is not None and (queue.depth_packets or queue.depth_bytes)):
            continue
        depths[port] = config.aqm.limit_pkts + QUEUE_HEADROOM_PKTS
    return depths


async def apply_ports(grpc_addr: str, ports: dict[int, PortConfig]) -> int:
    """Set every queue and link leaf the config names, and the AQM ports' depths; return
    how many were set. The depths are best effort: a switch without this gNMI service
    (BMv2) gets a warning that says what to set by hand."""
    updates = port_updates(ports)
    depths = [
        (GNMIPath(f"/p4aqm/ports/port[id={port}]/queues/queue[id=*]/config/depth-packets"), d)
        for port, d in aqm_depths(ports).items()
    ]
    if not updates and not depths:
        return 0
    async with GNMIClient(grpc_addr) as client:
        if updates:
            await client.set(update=updates)
        if depths:
            try:
                await client.set(update=depths)
            except GNMIClientError as exc:
                wanted = ", ".join(f"{port}: {d}" for port, d in aqm_depths(ports).items())
                print(
                    f"controller: could not set queue depths above the AQM limits ({exc.code}):"
                    f" set them by hand (port: packets) {wanted}, e.g. with simple_switch_CLI"
                    " set_queue_depth, or the switch may drop packets the program counted",
                    file=sys.stderr,
                )
                return len(updates)
    return len(updates) + len(depths)
