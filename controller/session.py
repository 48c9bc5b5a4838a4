"""One controller session: connect, become primary, push the pipeline if the switch runs
another one, and bring the tables and ports to what the config says (controller/sync.py)."""

import asyncio

import finsy as fy

from controller.config import ControllerConfig
from controller.port_control import apply_ports, needs_port_service, port_service
from controller.routes import route_entry
from controller.sync import sync_tables


class SwitchUnreachable(Exception):
    """The switch did not answer in time."""


class PipelineMismatch(Exception):
    """The config asks for tables or actions that the program does not have."""


def check_against_p4info(config: ControllerConfig, entries: list[fy.P4TableEntry]) -> None:
    """Encode every entry offline first, so a config that does not fit the program fails
    before anything is sent, with the table or field it names."""
    schema = fy.P4Schema(config.pipeline.p4info)
    for entry in entries:
        try:
            entry.encode(schema)
        except (ValueError, KeyError) as exc:
            raise PipelineMismatch(f"{config.pipeline.p4info}: {exc}") from None


def desired_entries(config: ControllerConfig) -> list[fy.P4TableEntry]:
    """Every table entry the config asks for: routes, then each port's discipline."""
    entries = [route_entry(route) for route in config.routes]
    for port, port_config in sorted(config.ports.items()):
        if port_config.aqm is not None:
            entries += port_config.aqm.entries(port)
    return entries


async def _apply(config: ControllerConfig) -> tuple[int, int, int]:
    options = fy.SwitchOptions(
        p4info=config.pipeline.p4info,
        p4blob=config.pipeline.bmv2_json,
        device_id=config.switch.device_id,
        initial_election_id=config.switch.election_id,
    )
    entries = desired_entries(config)
    check_against_p4info(config, entries)
    # Asked first, so that a port setting the switch cannot take fails before any write.
    service = await port_service(config) if needs_port_service(config.ports) else None
    async with fy.Switch("p4aqm", config.switch.grpc_addr, options) as switch:
        changes = await sync_tables(switch, entries)
    if service is not None:
        await apply_ports(config, service)
    return changes


def apply_config(config: ControllerConfig, timeout_s: float = 10.0) -> tuple[int, int, int]:
    """Install the pipeline if needed and sync the tables; return (inserted, modified,
    deleted) entries."""
    try:
        return asyncio.run(asyncio.wait_for(_apply(config), timeout_s))
    except TimeoutError:
        raise SwitchUnreachable(
            f"no P4Runtime answer from {config.switch.grpc_addr} within {timeout_s:g} s"
        ) from None
