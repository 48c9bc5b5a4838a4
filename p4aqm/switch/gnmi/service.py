"""gNMI Get/Set for the run-time controls P4Runtime has no message for: queue rates and
depths, link delay and rate, and per-port and per-queue counters (paths in paths.py);
Get of the emulation's fidelity and the monitor's totals (emulation.py); Subscribe for
the dataplane's queue monitor (monitor.py).

It shares the P4Runtime server's gRPC port and event loop. The dataplane cannot report
the configuration back, so a Get of a config leaf returns the last value Set here
(`queue[id=*]` reads the value Set for every queue of the port).
"""

import logging
import time
from collections.abc import AsyncIterator
from typing import Protocol

import grpc
from finsy.proto import gnmi, gnmi_grpc

from p4aqm.schema import WRITABLE, Group, LeafName, field_name
from p4aqm.switch.gnmi.emulation import EmulationState, is_switch_state, switch_state_updates
from p4aqm.switch.gnmi.monitor import Monitor, monitor_request, monitor_stream
from p4aqm.switch.gnmi.paths import Leaf, path_text, resolve
from p4aqm.switch.runtime.errors import P4RuntimeError, call_dataplane, invalid, not_found
from p4aqm.switch.runtime.status import status

LOG = logging.getLogger("p4aqm.switch.gnmi")
GNMI_VERSION = "0.10.0"


class PortControl(Protocol):
    """The dataplane methods this service calls."""

    def set_queue(
        self,
        port: int,
        queue: int | None = None,
        *,
        rate_pps: float | None = None,
        rate_bps: int | None = None,
        depth_pkts: int | None = None,
        depth_bytes: int | None = None,
    ) -> None: ...

    def set_link(
        self, port: int, *, delay_us: int | None = None, rate_bps: int | None = None
    ) -> None: ...

    def port_stats(self, port: int) -> dict[str, int]: ...


class SwitchControl(PortControl, Monitor, EmulationState, Protocol):
    """Everything this service calls."""


# Leaf name -> value, for one queue of a port or (queue None) every queue of the port.
_Settings = dict[str, int | float]
_RATES = (LeafName.RATE_BPS, LeafName.RATE_PPS)


class GnmiService(gnmi_grpc.gNMIServicer):
    def __init__(self, dataplane: SwitchControl) -> None:
        self._dp = dataplane
        # The dataplane takes a queue's settings whole (an omitted rate means unlimited),
        # so the settings Set so far are kept, per (port, queue), to send them all again.
        self._queues: dict[tuple[int, int | None], _Settings] = {}
        self._links: dict[int, _Settings] = {}
        self._monitoring = False

    async def Capabilities(
        self, request: gnmi.CapabilityRequest, context: grpc.aio.ServicerContext
    ) -> gnmi.CapabilityResponse:
        return gnmi.CapabilityResponse(
            gNMI_version=GNMI_VERSION,
            supported_encodings=[gnmi.Encoding.PROTO, gnmi.Encoding.BYTES],
        )

    async def Get(
        self, request: gnmi.GetRequest, context: grpc.aio.ServicerContext
    ) -> gnmi.GetResponse:
        updates: list[gnmi.Update] = []
        async with status(context, LOG):
            if request.encoding not in (gnmi.Encoding.JSON, gnmi.Encoding.PROTO):
                name = gnmi.Encoding.Name(request.encoding)
                raise P4RuntimeError(
                    grpc.StatusCode.UNIMPLEMENTED, f"encoding {name}: use PROTO (or JSON)"
                )
            if not request.path:
                raise invalid("Get without a path: name at least one path")
            for path in request.path:
                full = gnmi.Path(elem=[*request.prefix.elem, *path.elem])
                names = [e.name for e in full.elem]
                if is_switch_state(names):
                    updates += switch_state_updates(self._dp, names, path_text(full))
                    continue
                leaves = resolve(request.prefix, path)
                for leaf in leaves:
                    # A container lists the config leaves that were set; a leaf that
                    # was not set is NOT_FOUND only when asked for by name.
                    updates += self._get(leaf, required=len(leaves) == 1)
        notification = gnmi.Notification(timestamp=time.time_ns(), update=updates)
        return gnmi.GetResponse(notification=[notification])

    async def Set(
        self, request: gnmi.SetRequest, context: grpc.aio.ServicerContext
    ) -> gnmi.SetResponse:
        results: list[gnmi.UpdateResult] = []
        async with status(context, LOG):
            if request.delete:
                raise invalid(
                    "Set: delete is not supported; set a new value instead "
                    f"(first delete path: {path_text(request.delete[0])})"
                )
            # Every path and value is checked before anything changes, so that a bad
            # request changes nothing.
            changes: list[tuple[Leaf, int | float, gnmi.Path, int]] = []
            for op, updates in (
                (gnmi.UpdateResult.REPLACE, request.replace),
                (gnmi.UpdateResult.UPDATE, request.update),
            ):
                for update in updates:
                    leaves = resolve(request.prefix, update.path)
                    if len(leaves) != 1 or not leaves[0].writable:
                        raise invalid(
                            f"Set: {path_text(update.path)} is not a config leaf; "
                            "write one of .../config/<leaf>"
                        )
                    changes.append((leaves[0], _value(leaves[0], update.val), update.path, op))
            for leaf, value, path, op in changes:
                self._set(leaf, value)
                results.append(gnmi.UpdateResult(path=path, op=op))
        return gnmi.SetResponse(timestamp=time.time_ns(), response=results)

    async def Subscribe(
        self,
        request_iterator: AsyncIterator[gnmi.SubscribeRequest],
        context: grpc.aio.ServicerContext,
    ) -> AsyncIterator[gnmi.SubscribeResponse]:
        """The queue monitor's stream (monitor.py); one at a time."""
        first = await anext(aiter(request_iterator), None)
        if first is None:
            return
        try:
            wanted = monitor_request(first)
        except P4RuntimeError as exc:
            await context.abort(exc.code, exc.message)
        if self._monitoring:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "a queue monitor stream is already open: the switch has one monitor",
            )
        self._monitoring = True
        LOG.info(
            "queue monitor started: every %d us, queues %s, %d register(s), %d counter(s)",
            wanted.period_us,
            wanted.queues,
            len(wanted.registers),
            len(wanted.counters),
        )
        try:
            async for response in monitor_stream(self._dp, wanted):
                yield response
        except P4RuntimeError as exc:
            await context.abort(exc.code, exc.message)
        finally:
            self._monitoring = False
            LOG.info("queue monitor stopped")

    # -- leaves ------------------------------------------------------------------------

    def _set(self, leaf: Leaf, value: int | float) -> None:
        if leaf.group == Group.LINK_CONFIG:
            self._set_link(leaf, int(value))
        else:
            self._set_queue(leaf, value)
        LOG.info("gNMI set port %d %s %s = %s", leaf.port, leaf.group, leaf.name, value)

    def _set_queue(self, leaf: Leaf, value: int | float) -> None:
        queues = {k: dict(v) for k, v in self._queues.items()}
        scope = queues.setdefault((leaf.port, leaf.queue), {})
        # One rate per queue: packets/s or bits/s.
        replaced = _RATES if leaf.name in _RATES else (leaf.name,)
        for name in replaced:
            scope.pop(name, None)
        scope[leaf.name] = value
        targets = [leaf.queue]
        if leaf.queue is None:
            # A value for every queue replaces the queues' own values of that leaf.
            for (port, queue), own in queues.items():
                if port == leaf.port and queue is not None:
                    for name in replaced:
                        own.pop(name, None)
                    targets.append(queue)
        for queue in targets:
            settings = _effective(queues, leaf.port, queue)
            kwargs = {field_name(name): v for name, v in settings.items()}
            call_dataplane(self._dp.set_queue, leaf.port, queue, **kwargs)
        self._queues = queues

    def _set_link(self, leaf: Leaf, value: int) -> None:
        """The dataplane leaves an omitted link setting as it is; 0 removes a setting."""
        if leaf.name == LeafName.DELAY_US:
            call_dataplane(self._dp.set_link, leaf.port, delay_us=value)
        else:
            call_dataplane(self._dp.set_link, leaf.port, rate_bps=value)
            # The line rate is the drain rate of every queue of the port (nothing queues
            # out of the program's sight), so it replaces the queues' rates.
            for (port, queue), settings in self._queues.items():
                if port == leaf.port:
                    for name in _RATES:
                        settings.pop(name, None)
                    if queue is None and value:
                        settings[LeafName.RATE_BPS] = value
            if value and (leaf.port, None) not in self._queues:
                self._queues[(leaf.port, None)] = {LeafName.RATE_BPS: value}
        self._links.setdefault(leaf.port, {})[leaf.name] = value

    def _get(self, leaf: Leaf, required: bool) -> list[gnmi.Update]:
        if leaf.group in WRITABLE:
            if leaf.group == Group.QUEUE_CONFIG:
                value = _effective(self._queues, leaf.port, leaf.queue).get(leaf.name)
            else:
                value = self._links.get(leaf.port, {}).get(leaf.name)
            if value is None and not required:
                return []
            if value is None:
                raise not_found(
                    f"{path_text(leaf.path())} was not set since the switch started "
                    "(the dataplane's default applies)"
                )
            return [gnmi.Update(path=leaf.path(), val=_typed(value))]
        stats = call_dataplane(self._dp.port_stats, leaf.port)
        if leaf.group == Group.PORT_COUNTERS:
            value = stats.get(field_name(leaf.name), 0)
            return [gnmi.Update(path=leaf.path(), val=_typed(value))]
        queues = [leaf.queue] if leaf.queue is not None else _queues(stats)
        updates = []
        for queue in queues:
            key = f"q{queue}_{field_name(leaf.name)}"
            if key not in stats:
                raise not_found(f"port {leaf.port} has no queue {queue}")
            one = Leaf(leaf.port, leaf.group, leaf.name, queue)
            updates.append(gnmi.Update(path=one.path(), val=_typed(stats[key])))
        return updates


def _effective(
    queues: dict[tuple[int, int | None], _Settings], port: int, queue: int | None
) -> _Settings:
    """A queue's settings: those Set for every queue of the port, then its own."""
    settings = dict(queues.get((port, None), {}))
    own = queues.get((port, queue), {}) if queue is not None else {}
    if any(name in own for name in _RATES):
        for name in _RATES:
            settings.pop(name, None)
    settings.update(own)
    return settings


def _queues(stats: dict[str, int]) -> list[int]:
    return sorted(
        int(k[1:].split("_", 1)[0])
        for k in stats
        if k.startswith("q") and k.endswith("_drops") and k[1:].split("_", 1)[0].isdigit()
    )


def _value(leaf: Leaf, value: gnmi.TypedValue) -> int | float:
    """The number a Set carries: a non-negative integer, or any non-negative number for
    rate-pps (BMv2 takes fractional packet rates)."""
    kind = value.WhichOneof("value")
    number = getattr(value, kind) if kind in ("uint_val", "int_val", "double_val") else None
    if kind == "float_val":
        number = value.float_val
    where = path_text(leaf.path())
    if number is None:
        raise invalid(f"Set {where}: expected a number (uint_val), got {kind or 'no value'}")
    if number < 0:
        raise invalid(f"Set {where}: {number} is negative")
    if isinstance(number, float):
        if leaf.name == LeafName.RATE_PPS:
            return number
        if not number.is_integer():
            raise invalid(f"Set {where}: {number} is not a whole number")
        return int(number)
    return number


def _typed(value: int | float) -> gnmi.TypedValue:
    if isinstance(value, float):
        return gnmi.TypedValue(double_val=value)
    return gnmi.TypedValue(uint_val=value)
