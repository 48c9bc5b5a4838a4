"""finsy, unchanged, against the P4Runtime server: connect, push, insert, read, forward.

The server runs on the test's own event loop: grpc.aio servers and clients on two
event loops of one process do not mix.
"""

import asyncio
from typing import Any

import finsy as fy

from p4aqm.switch.runtime.server import P4RuntimeService, start_server

ROUTE = fy.P4TableEntry(
    "ipv4_lpm",
    match=fy.P4TableMatch(dst_addr="10.0.1.0/24"),
    action=fy.P4TableAction(
        "ipv4_forward", dst_mac="00:00:00:00:01:01", src_mac="00:00:00:00:00:01", port=2
    ),
)


async def _session(dataplane: Any, program: Any) -> list[fy.P4TableEntry]:
    server, port = await start_server(P4RuntimeService(dataplane, device_id=0), "127.0.0.1:0")
    try:
        options = fy.SwitchOptions(
            p4info=program.p4info_path, p4blob=program.json_path, device_id=0
        )
        async with fy.Switch("sw1", f"127.0.0.1:{port}", options) as switch:
            # What a controller does on connect: reset, then install its entries.
            await switch.delete_all()
            await switch.insert([ROUTE])
            return [entry async for entry in switch.read(fy.P4TableEntry("ipv4_lpm"))]
    finally:
        await server.stop(grace=None)


def test_finsy_push_insert_read(l3_program: Any) -> None:
    from p4aqm.switch._dataplane import Dataplane

    dataplane = Dataplane(cpu_port=None, seed=0)
    for port in (1, 2):
        dataplane.add_memory_port(port)
    dataplane.start()
    try:
        entries = asyncio.run(_session(dataplane, l3_program))
    finally:
        dataplane.stop()
    assert len(entries) == 1
    [entry] = entries
    assert entry.match is not None
    assert entry.match["dst_addr"] == (0x0A000100, 24)
    assert entry.action is not None
    assert entry.action.name == "ipv4_forward"
    assert entry.action.args == {"dst_mac": 0x0101, "src_mac": 0x01, "port": 2}
