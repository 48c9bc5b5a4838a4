"""One controller session: connect, become primary, push the pipeline if the switch runs
another one, and bring the tables and ports to what the config says (controller/sync.py)."""

import asyncio
import json
import logging

import finsy as fy
import grpc
from finsy.proto import p4r, p4r_grpc

from controller.config import ControllerConfig
from controller.port_control import apply_ports, needs_port_service, port_service
from controller.routes import route_entry
from controller.sync import sync_tables


class _WithoutFinsyGnmiNotice(logging.Filter):
    """finsy asks every switch for OpenConfig's interface list over gNMI and, when that is
    UNIMPLEMENTED, warns "gNMI is not implemented". Neither our switch (whose gNMI serves
    /p4aqm queues and links) nor BMv2 serves that list, so the warning would be false on
    ours and says nothing useful on BMv2: the controller reports itself which service
    sets the queues (port_control.py)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().endswith("gNMI is not implemented")


logging.getLogger("finsy").addFilter(_WithoutFinsyGnmiNotice())


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


async def running_device_config(config: ControllerConfig) -> bytes | None:
    """The device config the switch runs now, None if it runs none."""
    request = p4r.GetForwardingPipelineConfigRequest(
        device_id=config.switch.device_id,
        response_type=p4r.GetForwardingPipelineConfigRequest.DEVICE_CONFIG_AND_COOKIE,
    )
    async with grpc.aio.insecure_channel(config.switch.grpc_addr) as channel:
        try:
            reply = await p4r_grpc.P4RuntimeStub(channel).GetForwardingPipelineConfig(request)
        except grpc.aio.AioRpcError as exc:
            if exc.code() == grpc.StatusCode.FAILED_PRECONDITION:
                return None  # no pipeline yet, as P4Runtime says it
            raise
    return reply.config.p4_device_config or None


def program_name(device_config: bytes) -> str:
    """The source program p4c names in a BMv2 JSON, or a description of the config."""
    try:
        return str(json.loads(device_config).get("program") or "an unnamed program")
    except (ValueError, AttributeError):
        return "a device config that is not BMv2 JSON"


def pipeline_change(before: bytes | None, after: bytes) -> str | None:
    """What the session did to the switch's pipeline, said so, or None if it kept it."""
    if before is None:
        return f"pipeline installed ({program_name(after)})"
    if before != after:
        return (
            f"pipeline replaced ({program_name(before)} -> {program_name(after)}):"
            " tables, registers and counters cleared"
        )
    return None


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
    before = await running_device_config(config)
    async with fy.Switch("p4aqm", config.switch.grpc_addr, options) as switch:
        changes = await sync_tables(switch, entries)
    change = pipeline_change(before, config.pipeline.bmv2_json.read_bytes())
    if change is not None:
        print(f"controller: {change}")
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
