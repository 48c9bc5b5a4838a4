"""`p4aqm switch` as a process: ready line, clean stop on SIGTERM and SIGINT, gNMI."""

import asyncio
import signal
from typing import Any

import grpc
import pytest
from finsy import GNMIClient, GNMIPath
from finsy.gnmiclient import GNMIClientError
from finsy.proto import p4r, p4r_grpc
from switch_process import start_switch, stop_switch


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_runs_until_signalled(signum: signal.Signals) -> None:
    switch = start_switch(["--no-p4", "--grpc-server-addr", "127.0.0.1:0", "--device-id", "5"])
    try:
        assert switch.address.startswith("127.0.0.1:")
        assert "device 5, ports none" in switch.output[-1]
        switch.process.send_signal(signum)
        assert switch.process.wait(timeout=15) == 0
    finally:
        stop_switch(switch.process)


def test_loads_json_at_start(l3_program: Any) -> None:
    switch = start_switch([str(l3_program.json_path), "--grpc-server-addr", "127.0.0.1:0"])
    try:
        with grpc.insecure_channel(switch.address) as channel:
            stub = p4r_grpc.P4RuntimeStub(channel)
            reply = stub.GetForwardingPipelineConfig(
                p4r.GetForwardingPipelineConfigRequest(
                    device_id=0,
                    response_type=p4r.GetForwardingPipelineConfigRequest.DEVICE_CONFIG_AND_COOKIE,
                )
            )
        assert reply.config.p4_device_config == l3_program.json_path.read_bytes()
    finally:
        assert stop_switch(switch.process) == 0


def test_gnmi_on_the_grpc_port() -> None:
    """gNMI shares the P4Runtime port, and --priority-queues sets the queues per port."""
    switch = start_switch(
        ["--no-p4", "--", "--grpc-server-addr", "127.0.0.1:0"] + ["--priority-queues", "4"]
    )
    rate = GNMIPath("/p4aqm/ports/port[id=1]/queues/queue[id=3]/config/rate-pps")

    async def session() -> tuple[list[Any], str]:
        async with GNMIClient(switch.address) as client:
            await client.set(update=[(rate, 500)])
            values = [u.value for u in await client.get(rate)]
            try:
                await client.set(update=[(rate.set("queue", id=4), 500)])
            except GNMIClientError as exc:
                return values, exc.message
        return values, ""

    try:
        values, error = asyncio.run(session())
    finally:
        assert stop_switch(switch.process) == 0
    assert values == [500]
    assert "4 queue(s) per port" in error
