"""One controller session: connect, become primary, push the pipeline, write entries."""

import asyncio

import finsy as fy

from controller.config import ControllerConfig
from controller.port_control import apply_ports
from controller.routes import route_entry


class SwitchUnreachable(Exception):
    """The switch did not answer in time."""


async def _apply(config: ControllerConfig) -> int:
    options = fy.SwitchOptions(
        p4info=config.pipeline.p4info,
        p4blob=config.pipeline.bmv2_json,
        device_id=config.switch.device_id,
        initial_election_id=config.switch.election_id,
        # Pushing with VERIFY_AND_COMMIT clears the switch's tables, so the
        # entries written below are the whole forwarding state afterwards.
        p4force=True,
    )
    entries = [route_entry(route) for route in config.routes]
    async with fy.Switch("p4aqm", config.switch.grpc_addr, options) as switch:
        if entries:
            await switch.insert(entries)
    await apply_ports(config.switch.grpc_addr, config.ports)
    return len(entries)


def apply_config(config: ControllerConfig, timeout_s: float = 10.0) -> int:
    """Install the pipeline and routes; return how many entries were written."""
    try:
        return asyncio.run(asyncio.wait_for(_apply(config), timeout_s))
    except TimeoutError:
        raise SwitchUnreachable(
            f"no P4Runtime answer from {config.switch.grpc_addr} within {timeout_s:g} s"
        ) from None
