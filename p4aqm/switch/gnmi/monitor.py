"""gNMI Subscribe (STREAM, SAMPLE) for the dataplane's queue monitor.

A client names what to sample, one Subscription per item, all with one sample_interval
(the period, 1 ms or more):

    /p4aqm/ports/port[id=N]/queues/queue[id=Q]/state   depth, arrivals, departures,
                                                       drops and sojourn of the queue
    /p4aqm/registers/register[name=R][index=I]          a register cell
    /p4aqm/counters/counter[name=C][index=I]            a counter cell (deltas)

The dataplane samples them itself at every period (dataplane/README.md, "Queue
monitor"). The stream answers with encoding BYTES, the only one it takes: per-leaf typed
values would cost this Python server a Notification per period with dozens of updates,
several per cent of a core at 3 ms, on the small machines the lab runs on; packed
records cost one message per batch. So:

  1. a Notification whose update `/p4aqm/monitor/layout` is a JSON value: the record's
     field names (each a little-endian uint64), the period, and what each queue,
     register and counter index stands for; then `sync_response`;
  2. every BATCH_S, a Notification with `/p4aqm/monitor/records` (bytes: the records of
     the periods since the last one, back to back) and `/p4aqm/monitor/state/overruns`
     and `/missed` (totals since the stream began).

One monitor stream at a time; it ends, and the monitor stops, when the client cancels.
"""

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Protocol

import grpc
from finsy.proto import gnmi

from p4aqm.schema import (
    CONTAINER_ELEMENTS,
    COUNTER_CELL,
    MAX_PORT,
    MONITOR,
    MONITOR_LAYOUT,
    MONITOR_MISSED,
    MONITOR_OVERRUNS,
    MONITOR_RECORDS,
    REGISTER_CELL,
    ROOT,
    Group,
    container_path,
    counter_cell_path,
    register_cell_path,
)
from p4aqm.switch.gnmi.paths import path_text
from p4aqm.switch.runtime.errors import P4RuntimeError, call_dataplane, invalid

# The records' latency to the client. Each batch wakes this server and gRPC's threads;
# the ring holds minutes of records, and the clients write them to files.
BATCH_S = 0.2
MIN_PERIOD_NS = 1_000_000


class Monitor(Protocol):
    """The dataplane methods the stream calls."""

    def monitor_start(
        self,
        period_us: int,
        queues: list[tuple[int, int]],
        registers: list[tuple[str, int]],
        counters: list[tuple[str, int]],
    ) -> list[str]: ...

    def monitor_take(self, max_records: int = 0) -> bytes: ...

    def monitor_stats(self) -> dict[str, int]: ...

    def monitor_stop(self) -> None: ...


@dataclass
class MonitorRequest:
    """What one subscription list asks the monitor for."""

    period_us: int
    queues: list[tuple[int, int]] = field(default_factory=list)
    registers: list[tuple[str, int]] = field(default_factory=list)
    counters: list[tuple[str, int]] = field(default_factory=list)


def monitor_request(request: gnmi.SubscribeRequest) -> MonitorRequest:
    """The monitor a SubscribeRequest asks for; INVALID_ARGUMENT naming what is wrong."""
    if not request.HasField("subscribe"):
        raise invalid("Subscribe: the first request must be a SubscriptionList")
    subs = request.subscribe
    if subs.mode != gnmi.SubscriptionList.STREAM:
        mode = gnmi.SubscriptionList.Mode.Name(subs.mode)
        raise invalid(f"Subscribe: mode {mode} is not supported: use STREAM")
    if subs.encoding != gnmi.Encoding.BYTES:
        name = gnmi.Encoding.Name(subs.encoding)
        raise invalid(f"Subscribe: encoding {name} is not supported: use BYTES (packed records)")
    if not subs.subscription:
        raise invalid("Subscribe: the SubscriptionList names nothing to sample")
    intervals = {s.sample_interval for s in subs.subscription}
    if len(intervals) != 1:
        raise invalid("Subscribe: every subscription needs the same sample_interval")
    (interval_ns,) = intervals
    if interval_ns < MIN_PERIOD_NS:
        raise invalid(f"Subscribe: sample_interval {interval_ns} ns is below 1 ms")
    wanted = MonitorRequest(period_us=interval_ns // 1000)
    for sub in subs.subscription:
        if sub.mode != gnmi.SubscriptionMode.SAMPLE:
            name = gnmi.SubscriptionMode.Name(sub.mode)
            raise invalid(f"Subscribe: {path_text(sub.path)}: mode {name}: use SAMPLE")
        _add(wanted, gnmi.Path(elem=[*subs.prefix.elem, *sub.path.elem]))
    return wanted


def _add(wanted: MonitorRequest, path: gnmi.Path) -> None:
    text = path_text(path)
    names = [e.name for e in path.elem]
    keys = [dict(e.key) for e in path.elem]
    if names[:1] != [ROOT]:
        raise P4RuntimeError(grpc.StatusCode.UNIMPLEMENTED, f"{text}: only /{ROOT} is served")
    if names[1:] == ["ports", "port", *CONTAINER_ELEMENTS[Group.QUEUE_STATE]]:
        port, queue = _number(text, keys[2], "id"), _number(text, keys[4], "id")
        if port > MAX_PORT:
            raise invalid(f"{text}: port {port} is not in 0..{MAX_PORT}")
        wanted.queues.append((port, queue))
    elif tuple(names[1:]) in (REGISTER_CELL, COUNTER_CELL):
        cell = keys[2]
        if set(cell) != {"name", "index"}:
            raise invalid(f"{text}: give [name=...][index=N]")
        target = wanted.registers if tuple(names[1:]) == REGISTER_CELL else wanted.counters
        target.append((cell["name"], _number(text, cell, "index")))
    else:
        raise invalid(
            f"{text}: not a monitor path: subscribe to"
            f" {container_path(Group.QUEUE_STATE, 'N', 'Q')},"
            f" {register_cell_path('R', 'I')} or {counter_cell_path('C', 'I')}"
        )


def _number(text: str, keys: dict[str, str], key: str) -> int:
    value = keys.get(key, "")
    if not value.isdigit():
        raise invalid(f"{text}: {key} '{value}' is not a number")
    return int(value)


def _path(names: tuple[str, ...]) -> gnmi.Path:
    return gnmi.Path(elem=[gnmi.PathElem(name=n) for n in (ROOT, MONITOR, *names)])


async def monitor_stream(
    monitor: Monitor, wanted: MonitorRequest
) -> AsyncIterator[gnmi.SubscribeResponse]:
    """The responses of one monitor stream, until the caller stops iterating."""
    fields = call_dataplane(
        monitor.monitor_start, wanted.period_us, wanted.queues, wanted.registers, wanted.counters
    )
    try:
        layout = {
            "fields": fields,
            "record_bytes": 8 * len(fields),
            "byte_order": "little",
            "period_us": wanted.period_us,
            "queues": wanted.queues,
            "registers": wanted.registers,
            "counters": wanted.counters,
        }
        value = gnmi.TypedValue(json_val=json.dumps(layout).encode())
        update = gnmi.Update(path=_path(MONITOR_LAYOUT), val=value)
        yield gnmi.SubscribeResponse(
            update=gnmi.Notification(timestamp=time.time_ns(), update=[update])
        )
        yield gnmi.SubscribeResponse(sync_response=True)
        while True:
            await asyncio.sleep(BATCH_S)
            records = monitor.monitor_take()
            stats = monitor.monitor_stats()
            if not records:
                continue
            updates = [
                gnmi.Update(path=_path(MONITOR_RECORDS), val=gnmi.TypedValue(bytes_val=records)),
                *(
                    gnmi.Update(path=_path(leaf), val=gnmi.TypedValue(uint_val=stats[leaf[-1]]))
                    for leaf in (MONITOR_OVERRUNS, MONITOR_MISSED)
                ),
            ]
            yield gnmi.SubscribeResponse(
                update=gnmi.Notification(timestamp=time.time_ns(), update=updates)
            )
    finally:
        monitor.monitor_stop()
