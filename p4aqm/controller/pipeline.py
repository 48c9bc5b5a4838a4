"""The pipeline side of a session: a config's entries, checked against the program's
P4Info before anything is sent, and what became of the switch's pipeline. The session
itself is the router handle (router.py)."""

import json
import logging

import finsy as fy
import grpc
from finsy.proto import p4r, p4r_grpc

from p4aqm.controller.config import ControllerConfig, SwitchTarget
from p4aqm.controller.routes import route_entry


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


async def running_device_config(switch: SwitchTarget) -> bytes | None:
    """The device config the switch runs now, None if it runs none."""
    request = p4r.GetForwardingPipelineConfigRequest(
        device_id=switch.device_id,
        response_type=p4r.GetForwardingPipelineConfigRequest.DEVICE_CONFIG_AND_COOKIE,
    )
    async with grpc.aio.insecure_channel(switch.grpc_addr) as channel:
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
