"""gNMI Get/Set of queues, links and counters, with finsy's GNMIClient as the client.

The server runs on the test's own event loop, as in the finsy P4Runtime test.
"""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from finsy import GNMIClient, GNMIPath
from finsy.gnmiclient import GNMIClientError
from finsy.proto import gnmi

from p4aqm.switch.gnmi.service import GnmiService
from p4aqm.switch.runtime.server import P4RuntimeService, start_server, stop_server

PORT2 = "/p4aqm/ports/port[id=2]"
Session = Callable[[GNMIClient], Awaitable[Any]]


def _run(dataplane: Any, session: Session) -> Any:
    async def main() -> Any:
        service = P4RuntimeService(dataplane, device_id=0)
        server, port = await start_server(
            service, "127.0.0.1:0", gnmi_service=GnmiService(dataplane)
        )
        try:
            async with GNMIClient(f"127.0.0.1:{port}") as client:
                return await session(client)
        finally:
            await stop_server(server, service, grace=None)

    return asyncio.run(main())


@pytest.fixture
def timed_dataplane(externs: Any) -> Any:
    """Virtual time; runtime_externs loaded with port 1 forwarding to port 2."""
    from p4aqm.switch._dataplane import Dataplane

    dp = Dataplane(cpu_port=255, seed=1, virtual_time=True)
    for port in (1, 2):
        dp.add_memory_port(port)
    dp.load_pipeline(externs.device_config)
    dp.table_add("MyIngress.forward", [("exact", b"\x01")], "MyIngress.send", [b"\x02"], 0)
    dp.start()
    yield dp
    dp.stop()


def test_set_then_get_config(timed_dataplane: Any) -> None:
    rate = GNMIPath(f"{PORT2}/queues/queue[id=0]/config/rate-pps")
    depth = GNMIPath(f"{PORT2}/queues/queue[id=0]/config/depth-pkts")
    bits = GNMIPath(f"{PORT2}/queues/queue[id=0]/config/rate-bps")

    async def session(client: GNMIClient) -> Any:
        await client.set(update=[(rate, 1000), (depth, 16)])
        first = await client.get(GNMIPath(f"{PORT2}/queues/queue[id=0]/config"))
        # One rate per queue: bits/s replaces packets/s; the depth stays.
        await client.set(update=[(bits, 10_000_000)])
        second = await client.get(bits, depth)
        return first, second

    first, second = _run(timed_dataplane, session)
    assert [(str(u.path), u.value) for u in first] == [(str(rate), 1000), (str(depth), 16)]
    assert [(str(u.path), u.value) for u in second] == [(str(bits), 10_000_000), (str(depth), 16)]


def test_depth_drops_and_counts(timed_dataplane: Any) -> None:
    depth = GNMIPath(f"{PORT2}/queues/queue[id=0]/config/depth-pkts")
    rate = GNMIPath(f"{PORT2}/queues/queue[id=0]/config/rate-pps")

    async def configure(client: GNMIClient) -> None:
        await client.set(update=[(rate, 10), (depth, 2)])

    _run(timed_dataplane, configure)
    frame = bytes(14) + b"payload"
    for _ in range(5):
        timed_dataplane.inject(1, frame)

    async def read(client: GNMIClient) -> Any:
        return await client.get(
            GNMIPath(f"{PORT2}/state/counters/tm-drops"),
            GNMIPath(f"{PORT2}/queues/queue[id=0]/state"),
        )

    updates = _run(timed_dataplane, read)
    values = {str(u.path).rsplit("/", 1)[1]: u.value for u in updates}
    # Five arrivals at one instant (virtual time stands still) into a queue of two: the
    # first leaves the queue at once (it is being sent, as on BMv2), two wait, two drop.
    assert (values["qdepth-pkts"], values["drops"], values["tm-drops"]) == (2, 2, 2)


def test_queue_rate_paces_departures(timed_dataplane: Any) -> None:
    async def session(client: GNMIClient) -> None:
        await client.set(update=[(GNMIPath(f"{PORT2}/queues/queue[id=*]/config/rate-pps"), 1000)])

    _run(timed_dataplane, session)
    frame = bytes(14) + b"payload"
    for _ in range(3):
        timed_dataplane.inject(1, frame)
    timed_dataplane.advance_time(10_000)
    times = [t for _, _, t in timed_dataplane.take_output_timed()]
    # 1000 packets/s: one departure per millisecond.
    assert [b - a for a, b in zip(times, times[1:], strict=False)] == [1_000_000, 1_000_000]


def test_link_delay_and_rate(timed_dataplane: Any) -> None:
    delay = GNMIPath(f"{PORT2}/link/config/delay-us")
    line_rate = GNMIPath(f"{PORT2}/link/config/rate-bps")
    queue_rate = GNMIPath(f"{PORT2}/queues/queue[id=0]/config/rate-bps")

    async def session(client: GNMIClient) -> Any:
        await client.set(update=[(GNMIPath(f"{PORT2}/queues/queue[id=0]/config/rate-pps"), 5)])
        # 1 ms each way; a 1 Mbit/s line, which every queue of the port drains at.
        await client.set(update=[(delay, 1000), (line_rate, 1_000_000)])
        return await client.get(delay, line_rate, queue_rate)

    updates = _run(timed_dataplane, session)
    assert [u.value for u in updates] == [1000, 1_000_000, 1_000_000]
    frame = bytes(14) + bytes(111)  # 125 bytes: 1 ms at 1 Mbit/s
    timed_dataplane.inject(1, frame)
    timed_dataplane.inject(1, frame)
    timed_dataplane.advance_time(10_000)
    times = [t for _, _, t in timed_dataplane.take_output_timed()]
    # Serialized one after the other at the line rate, each 1 ms late.
    assert times == [2_000_000, 3_000_000]


def test_counters(timed_dataplane: Any) -> None:
    frame = bytes(14) + b"payload"
    timed_dataplane.inject(1, frame)
    timed_dataplane.advance_time(1000)

    async def session(client: GNMIClient) -> Any:
        port1 = await client.get(GNMIPath("/p4aqm/ports/port[id=1]/state/counters"))
        port2 = await client.get(GNMIPath(f"{PORT2}/state/counters/tx-packets"))
        queues = await client.get(GNMIPath(f"{PORT2}/queues/queue[id=*]/state/drops"))
        return port1, port2, queues

    port1, port2, queues = _run(timed_dataplane, session)
    assert {u.path.last: u.value for u in port1}["rx-packets"] == 1
    assert [u.value for u in port2] == [1]
    assert [u.value for u in queues] == [0]


def test_emulation_state(timed_dataplane: Any) -> None:
    timed_dataplane.set_link(2, delay_us=1000)
    for _ in range(3):
        timed_dataplane.inject(1, bytes(14) + b"payload")
    timed_dataplane.advance_time(2000)

    async def session(client: GNMIClient) -> Any:
        state = await client.get(GNMIPath("/p4aqm/emulation/state"))
        one = await client.get(GNMIPath("/p4aqm/emulation/state/departures"))
        monitor = await client.get(GNMIPath("/p4aqm/monitor/state"))
        missing = await _error(client, lambda: client.get(GNMIPath("/p4aqm/emulation/x")))
        return state, one, monitor, missing

    state, one, monitor, missing = _run(timed_dataplane, session)
    # In virtual time every landing runs at its instant: none is late.
    assert {u.path.last: u.value for u in state} == {
        "departures": 3,
        "lateness-p50-ns": 0,
        "lateness-p99-ns": 0,
        "lateness-max-ns": 0,
        "lateness-buckets": b"[[0, 3]]",
    }
    assert [u.value for u in one] == [3]
    assert {u.path.last: u.value for u in monitor} == {"overruns": 0, "missed": 0}
    assert missing[0] == "NOT_FOUND"


async def _error(client: GNMIClient, call: Callable[[], Awaitable[Any]]) -> tuple[str, str]:
    try:
        await call()
    except GNMIClientError as exc:
        return exc.code.name, exc.message
    raise AssertionError("no error")


def test_bad_requests(timed_dataplane: Any) -> None:
    rate = GNMIPath(f"{PORT2}/queues/queue[id=0]/config/rate-bps")

    async def session(client: GNMIClient) -> list[tuple[str, str]]:
        return [
            await _error(client, lambda: client.set(update=[(rate, "fast")])),
            await _error(client, lambda: client.set(update=[(rate, -5)])),
            await _error(client, lambda: client.set(delete=[rate])),
            await _error(
                client,
                lambda: client.set(update=[(GNMIPath(f"{PORT2}/state/counters/tm-drops"), 1)]),
            ),
            await _error(client, lambda: client.get(GNMIPath("/p4aqm/nothing"))),
            await _error(client, lambda: client.get(GNMIPath("/interfaces/interface"))),
            await _error(client, lambda: client.get(GNMIPath(f"{PORT2}/link/config/rate-bps"))),
            await _error(client, lambda: client.set(update=[(rate, 0)])),
            await _error(
                client,
                lambda: client.set(
                    update=[(GNMIPath("/p4aqm/ports/port[id=511]/link/config/delay-us"), 1)]
                ),
            ),
        ]

    errors = _run(timed_dataplane, session)
    assert [code for code, _ in errors] == [
        "INVALID_ARGUMENT",
        "INVALID_ARGUMENT",
        "INVALID_ARGUMENT",
        "INVALID_ARGUMENT",
        "NOT_FOUND",
        "UNIMPLEMENTED",
        "NOT_FOUND",
        "INVALID_ARGUMENT",
        "INVALID_ARGUMENT",
    ]
    assert "expected a number" in errors[0][1]
    assert "is negative" in errors[1][1]
    assert "delete is not supported" in errors[2][1]
    assert "not a config leaf" in errors[3][1]
    assert "no such path /p4aqm/nothing" in errors[4][1]
    assert "only /p4aqm paths" in errors[5][1]
    assert "link/config/rate-bps was not set" in errors[6][1]
    assert "rate_bps must be positive" in errors[7][1]
    assert "port 511 out of range" in errors[8][1]


def test_capabilities(timed_dataplane: Any) -> None:
    async def session(client: GNMIClient) -> gnmi.CapabilityResponse:
        return await client.capabilities()

    reply = _run(timed_dataplane, session)
    assert reply.gNMI_version
    assert gnmi.Encoding.PROTO in reply.supported_encodings


def test_subscribe_takes_only_the_monitor_stream(timed_dataplane: Any) -> None:
    """Subscribe serves the queue monitor (STREAM, SAMPLE, BYTES); anything else is
    refused, saying what to ask for."""

    async def session(client: GNMIClient) -> tuple[str, str]:
        subscription = client.subscribe()
        subscription.once(GNMIPath(f"{PORT2}/state/counters"))

        async def drain() -> None:
            async for _ in subscription.synchronize():
                pass

        return await _error(client, drain)

    code, message = _run(timed_dataplane, session)
    assert code == "INVALID_ARGUMENT"
    assert "mode ONCE is not supported: use STREAM" in message
