"""gNMI Subscribe for the queue monitor (p4aqm/switch/gnmi/monitor.py): the layout first,
then packed records whose fields are what the dataplane's monitor recorded; requests
the stream does not take are refused, naming what to ask for."""

import asyncio
import json
from typing import Any

import grpc
import numpy as np
import pytest
from finsy import GNMIPath
from finsy.proto import gnmi, gnmi_grpc

from p4aqm.switch._dataplane import Dataplane
from p4aqm.switch.gnmi.service import GnmiService
from p4aqm.switch.runtime.server import P4RuntimeService, start_server, stop_server

PERIOD_NS = 2_000_000
QUEUE_PATH = "/p4aqm/ports/port[id=2]/queues/queue[id=0]/state"


def request(
    paths: list[str],
    interval_ns: int = PERIOD_NS,
    encoding: int = gnmi.Encoding.BYTES,
    mode: int = gnmi.SubscriptionList.STREAM,
) -> gnmi.SubscribeRequest:
    subscriptions = [
        gnmi.Subscription(
            path=GNMIPath(p).path, mode=gnmi.SubscriptionMode.SAMPLE, sample_interval=interval_ns
        )
        for p in paths
    ]
    return gnmi.SubscribeRequest(
        subscribe=gnmi.SubscriptionList(mode=mode, encoding=encoding, subscription=subscriptions)
    )


@pytest.fixture
def dataplane(externs: Any) -> Any:
    """Real time; port 1 forwards to port 2, whose queue drains at 100 packets/s."""
    dp = Dataplane(cpu_port=255, seed=1)
    for port in (1, 2):
        dp.add_memory_port(port)
    dp.load_pipeline(externs.device_config)
    dp.table_add("MyIngress.forward", [("exact", b"\x01")], "MyIngress.send", [b"\x02"], 0)
    dp.set_queue(2, rate_pps=100)
    dp.start()
    yield dp
    dp.stop()


def stream(dp: Any, requests: list[gnmi.SubscribeRequest], responses: int) -> list[Any]:
    """The first `responses` responses of each request's stream, opened together."""

    async def main() -> list[Any]:
        service = P4RuntimeService(dp, device_id=0)
        server, port = await start_server(service, "127.0.0.1:0", gnmi_service=GnmiService(dp))
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = gnmi_grpc.gNMIStub(channel)
                calls = [stub.Subscribe(iter([r])) for r in requests]
                out = []
                for call in calls:
                    try:
                        out.append([await call.read() for _ in range(responses)])
                    except grpc.aio.AioRpcError as exc:
                        out.append((exc.code().name, exc.details()))
                for call in calls:
                    call.cancel()
                return out
        finally:
            await stop_server(server, service, grace=None)

    return asyncio.run(main())


def test_layout_then_records_of_the_monitor(dataplane: Any) -> None:
    # A burst: the queue holds most of it for the whole stream (100 packets/s).
    for _ in range(20):
        dataplane.inject(1, bytes(64))
    (responses,) = stream(dataplane, [request([QUEUE_PATH])], responses=4)
    layout_update = responses[0].update.update[0]
    assert [e.name for e in layout_update.path.elem] == ["p4aqm", "monitor", "layout"]
    layout = json.loads(layout_update.val.json_val)
    assert layout["period_us"] == PERIOD_NS // 1000
    assert layout["queues"] == [[2, 0]]
    assert layout["fields"][:4] == ["period", "time_us", "realtime_ns", "q0.qdepth_pkts"]
    assert responses[1].sync_response
    dtype = np.dtype([(name, "<u8") for name in layout["fields"]])
    records = np.concatenate(
        [
            np.frombuffer(update.val.bytes_val, dtype=dtype)
            for response in responses[2:]
            for update in response.update.update
            if update.path.elem[-1].name == "records"
        ]
    )
    # Periods from the start, each there or counted as missed (a late wake-up of this
    # busy machine's event loop), and a queue that holds the burst.
    missed = max(
        update.val.uint_val
        for response in responses[2:]
        for update in response.update.update
        if update.path.elem[-1].name == "missed"
    )
    periods = [int(p) for p in records["period"]]
    assert periods[0] == 0 and periods == sorted(set(periods))
    assert len(periods) + missed >= periods[-1] + 1
    assert records["q0.qdepth_pkts"].max() > 10
    assert (records["q0.qdepth_bytes"] == records["q0.qdepth_pkts"] * 64).all()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"encoding": gnmi.Encoding.PROTO}, "encoding PROTO is not supported: use BYTES"),
        ({"interval_ns": 999_999}, "sample_interval 999999 ns is below 1 ms"),
        ({"mode": gnmi.SubscriptionList.POLL}, "mode POLL is not supported: use STREAM"),
        ({"paths": ["/p4aqm/ports/port[id=2]/state"]}, "not a monitor path"),
        ({"paths": ["/p4aqm/registers/register[name=r]"]}, "give [name=...][index=N]"),
        ({"paths": ["/p4aqm/registers/register[name=nope][index=0]"]}, "nope"),
    ],
)
def test_bad_subscriptions_are_refused(dataplane: Any, changes: dict, message: str) -> None:
    paths = changes.pop("paths", [QUEUE_PATH])
    ((code, details),) = stream(dataplane, [request(paths, **changes)], responses=1)
    assert code in ("INVALID_ARGUMENT", "NOT_FOUND"), details
    assert message in details


def test_one_monitor_stream_at_a_time(dataplane: Any) -> None:
    outcomes = stream(dataplane, [request([QUEUE_PATH])] * 2, responses=2)
    refused = [o for o in outcomes if isinstance(o, tuple)]
    served = [o for o in outcomes if not isinstance(o, tuple)]
    assert [code for code, _ in refused] == ["RESOURCE_EXHAUSTED"]
    assert served[0][1].sync_response
