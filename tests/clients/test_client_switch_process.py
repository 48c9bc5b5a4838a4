"""`p4aqm switch` as a process: ready line, clean stop on SIGTERM and SIGINT."""

import signal
from typing import Any

import grpc
import pytest
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
