"""The dataplane's messages to and from the controller: packet-out from the primary's
stream into the pipeline through the CPU port, and packet-ins, digest lists and idle
timeout notifications from the dataplane to the primary's stream."""

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Protocol

import grpc
from finsy.proto import p4r

from p4aqm.switch.runtime.arbitration import Arbitrator, Stream
from p4aqm.switch.runtime.controller_headers import packet_in_message, packet_out_bytes
from p4aqm.switch.runtime.entities import Entities
from p4aqm.switch.runtime.errors import P4RuntimeError, call_dataplane
from p4aqm.switch.runtime.idle_timeouts import SWEEP_INTERVAL_S
from p4aqm.switch.runtime.poller import Poller
from p4aqm.switch.runtime.resources import Resources

LOG = logging.getLogger("p4aqm.switch.runtime")
# Packet-ins and digests go to the primary of the default role: this server has no role
# configs that would route them elsewhere.
DEFAULT_ROLE = ""


class CpuPortApi(Protocol):
    def packet_out(self, packet: bytes) -> None: ...

    def packet_in(self, timeout_s: float) -> list[bytes]: ...

    def digests(self, timeout_s: float) -> list[tuple[str, list[bytes]]]: ...

    def interrupt_waits(self) -> None: ...


class ControllerIo:
    """`entities` gives the committed pipeline's entities, or None before a P4Info push
    (then packets pass without metadata, and digests are dropped)."""

    def __init__(
        self,
        dataplane: CpuPortApi,
        arbitrator: Arbitrator,
        entities: Callable[[], Entities | None],
    ) -> None:
        self._dp = dataplane
        self._arbitrator = arbitrator
        self._entities = entities
        self._pollers = (
            Poller(
                "packet-in", dataplane.packet_in, self._deliver_packet, dataplane.interrupt_waits
            ),
            Poller("digests", dataplane.digests, self._deliver_digest, dataplane.interrupt_waits),
        )
        self._sweeper: asyncio.Task[None] | None = None
        # Messages lost because no client was primary, as a switch loses them when its
        # controller is away.
        self.undelivered = 0

    def start(self) -> None:
        for poller in self._pollers:
            poller.start()
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_idle_entries())

    async def stop(self) -> None:
        for poller in self._pollers:
            await poller.stop()
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None

    def _resources(self) -> Resources | None:
        entities = self._entities()
        return entities.pipeline.resources if entities is not None else None

    def packet_out(self, stream: Stream, packet: p4r.PacketOut) -> None:
        """Send a packet-out through the pipeline; raise P4RuntimeError if refused."""
        primary = self._arbitrator.primary(stream.role or DEFAULT_ROLE)
        if stream.role is None or primary is not stream:
            raise P4RuntimeError(
                grpc.StatusCode.PERMISSION_DENIED,
                "packet-out: only the primary client may send packets",
            )
        resources = self._resources()
        header = resources.packet_out if resources is not None else None
        call_dataplane(self._dp.packet_out, packet_out_bytes(header, packet))

    def digest_ack(self, ack: p4r.DigestListAck) -> None:
        entities = self._entities()
        if entities is None:
            raise P4RuntimeError(
                grpc.StatusCode.FAILED_PRECONDITION, "digest ack: no pipeline with P4Info"
            )
        entities.digest_entries.ack(ack)

    def _deliver_packet(self, frame: bytes) -> None:
        resources = self._resources()
        header = resources.packet_in if resources is not None else None
        self._send(p4r.StreamMessageResponse(packet=packet_in_message(header, frame)))

    def _deliver_digest(self, digest: tuple[str, list[bytes]]) -> None:
        entities = self._entities()
        message = entities.digest_entries.digest_list(*digest) if entities is not None else None
        if message is not None:
            self._send(p4r.StreamMessageResponse(digest=message))

    async def _sweep_idle_entries(self) -> None:
        """On the event loop, as the writes that change the entries are."""
        while True:
            await asyncio.sleep(SWEEP_INTERVAL_S)
            entities = self._entities()
            try:
                expired = entities.idle_timeouts.expired() if entities is not None else []
            except P4RuntimeError:
                LOG.exception("idle timeouts: checking the entries failed")
                continue
            if expired:
                notification = p4r.IdleTimeoutNotification(
                    table_entry=expired, timestamp=time.time_ns()
                )
                self._send(p4r.StreamMessageResponse(idle_timeout_notification=notification))

    def _send(self, message: p4r.StreamMessageResponse) -> None:
        primary = self._arbitrator.primary(DEFAULT_ROLE)
        if primary is None:
            self.undelivered += 1
            LOG.debug("no primary client: %s dropped", message.WhichOneof("update"))
            return
        primary.queue.put_nowait(message)
