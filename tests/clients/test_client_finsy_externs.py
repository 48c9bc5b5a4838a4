"""finsy, unchanged, against the P4Runtime server running runtime_externs: a table
entry, a counter and a register written and read back, a packet-in and a packet-out.

The server runs on the test's own event loop (see test_client_finsy.py).
"""

import asyncio
import time
from typing import Any

import finsy as fy
import pytest

from p4aqm.switch.gnmi.service import GnmiService
from p4aqm.switch.runtime.server import P4RuntimeService, start_server, stop_server
from programs import REPO, CompiledProgram, compile_program

SOURCE = REPO / "tests" / "switch" / "programs" / "runtime_externs.p4"
FRAME = bytes.fromhex("000000000002000000000001") + b"\x08\x00payload"
CPU_PORT = 255


@pytest.fixture(scope="module")
def externs_compiled(tmp_path_factory: pytest.TempPathFactory) -> CompiledProgram:
    return compile_program(SOURCE, tmp_path_factory.mktemp("runtime_externs"))


async def _session(dataplane: Any, program: CompiledProgram) -> dict[str, Any]:
    service = P4RuntimeService(dataplane, device_id=0)
    # With gNMI on the port, as `p4aqm switch` serves it: finsy probes it on connect.
    server, port = await start_server(service, "127.0.0.1:0", gnmi_service=GnmiService(dataplane))
    results: dict[str, Any] = {}
    try:
        options = fy.SwitchOptions(
            p4info=program.p4info_path, p4blob=program.json_path, device_id=0
        )
        async with fy.Switch("sw1", f"127.0.0.1:{port}", options) as switch:
            await switch.delete_all()
            await switch.insert(
                [
                    fy.P4TableEntry(
                        "forward",
                        match=fy.P4TableMatch({"standard_metadata.ingress_port": 1}),
                        action=fy.P4TableAction("to_cpu"),
                    )
                ]
            )
            results["table"] = [e async for e in switch.read(fy.P4TableEntry("forward"))]
            await switch.modify([fy.P4RegisterEntry("last_length", index=3, data=0x1234)])
            results["register"] = [
                e async for e in switch.read(fy.P4RegisterEntry("last_length", index=3))
            ]
            await switch.modify(
                [
                    fy.P4CounterEntry(
                        "port_packets", index=4, data=fy.P4CounterData(byte_count=9, packet_count=1)
                    )
                ]
            )
            results["counter"] = [
                e async for e in switch.read(fy.P4CounterEntry("port_packets", index=4))
            ]

            packets = switch.read_packets()
            first = asyncio.ensure_future(anext(packets))
            await asyncio.sleep(0)
            dataplane.inject(1, FRAME)
            results["packet_in"] = await asyncio.wait_for(first, 30)
            await packets.aclose()

            dataplane.take_output()
            await switch.write([fy.P4PacketOut(FRAME, egress_port=2, pad=0)])
            results["packet_out"] = await _output(dataplane)
    finally:
        await stop_server(server, service, grace=None)
    return results


async def _output(dataplane: Any) -> list[tuple[int, bytes]]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if output := dataplane.take_output():
            return output
        await asyncio.sleep(0.01)
    return []


def test_finsy_externs_and_packets(externs_compiled: CompiledProgram) -> None:
    from p4aqm.switch._dataplane import Dataplane

    dataplane = Dataplane(cpu_port=CPU_PORT, seed=0)
    for port in (1, 2):
        dataplane.add_memory_port(port)
    dataplane.start()
    try:
        results = asyncio.run(_session(dataplane, externs_compiled))
    finally:
        dataplane.stop()
    [entry] = results["table"]
    assert entry.action.name == "to_cpu"
    [register] = results["register"]
    assert register.data == 0x1234
    [counter] = results["counter"]
    assert (counter.data.byte_count, counter.data.packet_count) == (9, 1)
    packet_in = results["packet_in"]
    assert packet_in.payload == FRAME
    assert packet_in["ingress_port"] == 1
    assert results["packet_out"] == [(2, FRAME)]
