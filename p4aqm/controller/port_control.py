"""Queues and links set at run time over the switch's gNMI service (p4aqm/switch/README.md).

P4Runtime has no message for a queue's rate or a link's delay; `p4aqm switch` serves
them as gNMI paths under /p4aqm on the same gRPC port, and finsy's GNMIClient sets them.
A switch whose gNMI is UNIMPLEMENTED (BMv2) gets its queues through its own runtime CLI
instead (p4aqm/controller/bmv2_queues.py).

An AQM program counts the packets it admits and uncounts them when they leave. If the
traffic manager dropped one it had admitted, the count would stay too high for good: so
the queue must be deeper than the program's limit. A port with an AQM and no depth of
its own gets one, QUEUE_HEADROOM_PKTS above the limit (room for packets the program
does not count, such as ARP).
"""

import enum

from finsy import GNMIClient, GNMIPath
from finsy.gnmiclient import GNMIClientError
from finsy.grpcutil import GRPCStatusCode

from p4aqm.controller import bmv2_queues
from p4aqm.controller.config import ControllerConfig, PortConfig
from p4aqm.controller.disciplines import ClassQueue, class_queues
from p4aqm.schema import LEAVES, Group, LeafName, field_name, leaf_path

QUEUE_HEADROOM_PKTS = 64


def _group_updates(
    group: Group, port: int, settings: object | None
) -> list[tuple[GNMIPath, int | float]]:
    """A leaf of `group` for each field of `settings` that is set; queue settings apply
    to every queue of the port."""
    if settings is None:
        return []
    updates: list[tuple[GNMIPath, int | float]] = []
    for leaf in LEAVES[group]:
        value = getattr(settings, field_name(leaf))
        if value is not None:
            updates.append((GNMIPath(leaf_path(group, port, leaf)), value))
    return updates


def port_updates(ports: dict[int, PortConfig]) -> list[tuple[GNMIPath, int | float]]:
    updates: list[tuple[GNMIPath, int | float]] = []
    for port, config in sorted(ports.items()):
        updates += _group_updates(Group.QUEUE_CONFIG, port, config.queue)
        updates += _group_updates(Group.LINK_CONFIG, port, config.link)
    return updates


def aqm_depths(ports: dict[int, PortConfig]) -> dict[int, int]:
    """Queue depths (packets) for the ports with an AQM whose config gives no depth."""
    depths = {}
    for port, config in sorted(ports.items()):
        queue = config.queue
        if config.aqm is None or (queue is not None and (queue.depth_pkts or queue.depth_bytes)):
            continue
        depths[port] = config.aqm.limit_pkts + QUEUE_HEADROOM_PKTS
    return depths


def class_settings(ports: dict[int, PortConfig]) -> list[tuple[int, ClassQueue, int]]:
    """Each class queue of the ports (CBQ's), with the port and the queue's depth in
    packets: the port's own depth if it gives one (deeper than every class's limit, as
    PortConfig checks), else QUEUE_HEADROOM_PKTS above the class's limit."""
    settings = []
    for port, config in sorted(ports.items()):
        depth = config.queue.depth_pkts if config.queue is not None else None
        for queue in class_queues(config.aqm):
            settings.append((port, queue, depth or queue.limit_pkts + QUEUE_HEADROOM_PKTS))
    return settings


def class_updates(ports: dict[int, PortConfig]) -> list[tuple[GNMIPath, int | float]]:
    """The gNMI leaves of each class queue: its depth, and its rate unless it borrows."""
    updates: list[tuple[GNMIPath, int | float]] = []
    for port, queue, depth in class_settings(ports):
        leaves = [(LeafName.DEPTH_PKTS, depth)]
        if queue.rate_bps is not None:
            leaves.append((LeafName.RATE_BPS, queue.rate_bps))
        updates += [
            (GNMIPath(leaf_path(Group.QUEUE_CONFIG, port, leaf, queue.priority)), value)
            for leaf, value in leaves
        ]
    return updates


class PortService(enum.Enum):
    """How the switch takes queue and link settings."""

    GNMI = "gnmi"  # p4aqm switch
    BMV2_CLI = "bmv2-cli"  # gNMI UNIMPLEMENTED: BMv2's simple_switch_CLI


def needs_port_service(ports: dict[int, PortConfig]) -> bool:
    return bool(port_updates(ports) or aqm_depths(ports) or class_settings(ports))


async def port_service(config: ControllerConfig) -> PortService:
    """Ask the switch which service sets its queues; on BMv2, refuse what it cannot do
    before anything is written."""
    try:
        async with GNMIClient(config.switch.grpc_addr) as client:
            await client.capabilities()
    except GNMIClientError as exc:
        if exc.code != GRPCStatusCode.UNIMPLEMENTED:
            raise
        bmv2_queues.refuse_unsupported(config.ports)
        return PortService.BMV2_CLI
    return PortService.GNMI


async def apply_ports(
    config: ControllerConfig, service: PortService, client: GNMIClient | None
) -> int:
    """Set every queue and link setting the config names, and the AQM ports' depths,
    with `client` (open, for PortService.GNMI); return how many were set."""
    if service is PortService.BMV2_CLI:
        commands, notes = bmv2_queues.queue_commands(
            config, aqm_depths(config.ports), class_settings(config.ports)
        )
        for note in notes:
            print(f"controller: {note}")
        bmv2_queues.run_cli(config.switch.thrift_port, commands)
        return len(commands)
    ports = config.ports
    updates = port_updates(ports)
    depths = [
        (GNMIPath(leaf_path(Group.QUEUE_CONFIG, port, LeafName.DEPTH_PKTS)), depth)
        for port, depth in aqm_depths(ports).items()
    ]
    assert client is not None, "gNMI settings need the router's gNMI client"
    if updates:
        await client.set(update=updates)
    if depths:
        await client.set(update=depths)
    classes = class_updates(ports)
    if classes:
        await client.set(update=classes)
    return len(updates) + len(depths) + len(classes)
