"""Client arbitration: per (device, role) the stream with the highest election id is primary.

Only the event loop of the gRPC server calls this module, so it needs no locks. The
outgoing messages go through each stream's queue, which the stream's writer drains.
"""

import asyncio
from dataclasses import dataclass, field

from finsy.proto import p4r, rpc_code, rpc_status

from p4aqm.switch.runtime.errors import invalid, not_found


def u128(value: p4r.Uint128) -> int:
    return (value.high << 64) | value.low


def _to_u128(value: int) -> p4r.Uint128:
    return p4r.Uint128(high=value >> 64, low=value & ((1 << 64) - 1))


@dataclass(eq=False)
class Stream:
    """One StreamChannel: its outgoing messages and what it arbitrated for."""

    queue: asyncio.Queue[p4r.StreamMessageResponse | None] = field(default_factory=asyncio.Queue)
    role: str | None = None
    # None when the client sent no election id: such a stream never becomes primary.
    election_id: int | None = None


class Arbitrator:
    """The streams of one device, grouped by role, and the primary of each role."""

    def __init__(self, device_id: int) -> None:
        self.device_id = device_id
        self._streams: dict[str, list[Stream]] = {}
        self._primary: dict[str, Stream | None] = {}

    def arbitrate(self, stream: Stream, update: p4r.MasterArbitrationUpdate) -> None:
        """Record `stream`'s request; answer it, and every stream of the role if the
        primary changed. Raise P4RuntimeError for a request the stream must be closed for."""
        if update.device_id != self.device_id:
            raise not_found(
                f"unknown device id {update.device_id}; this is device {self.device_id}"
            )
        role = update.role.name
        if stream.role is not None and stream.role != role:
            raise invalid(
                f"this stream arbitrated for role '{stream.role}'; open another stream "
                f"for role '{role}'"
            )
        election_id = u128(update.election_id) if update.HasField("election_id") else None
        streams = self._streams.setdefault(role, [])
        if election_id is not None and any(
            s is not stream and s.election_id == election_id for s in streams
        ):
            raise invalid(
                f"election id {election_id} is already used by another stream of role '{role}'"
            )
        stream.role = role
        stream.election_id = election_id
        if stream not in streams:
            streams.append(stream)
        self._elect(role, stream)

    def remove(self, stream: Stream) -> None:
        """Forget an ended stream; if it was primary, the next highest takes over and
        every stream of the role is told. Calling it again for the stream does nothing."""
        if stream.role is None or stream not in self._streams.get(stream.role, []):
            return
        self._streams[stream.role].remove(stream)
        self._elect(stream.role, None)

    def primary(self, role: str) -> Stream | None:
        return self._primary.get(role)

    def is_primary(self, role: str, election_id: p4r.Uint128 | None) -> bool:
        primary = self._primary.get(role)
        return (
            primary is not None
            and election_id is not None
            and primary.election_id == u128(election_id)
        )

    def _elect(self, role: str, requester: Stream | None) -> None:
        streams = self._streams[role]
        candidates = [s for s in streams if s.election_id is not None]
        primary = max(candidates, key=lambda s: s.election_id or 0, default=None)
        changed = primary is not self._primary.get(role)
        self._primary[role] = primary
        # Everyone learns of a new primary; otherwise only the requester gets an answer.
        targets = streams if changed else [requester] if requester is not None else []
        for stream in targets:
            stream.queue.put_nowait(self._response(role, stream, primary))

    def _response(
        self, role: str, stream: Stream, primary: Stream | None
    ) -> p4r.StreamMessageResponse:
        update = p4r.MasterArbitrationUpdate(device_id=self.device_id)
        if role:
            update.role.name = role
        if primary is not None and primary.election_id is not None:
            update.election_id.CopyFrom(_to_u128(primary.election_id))
        if stream is primary:
            update.status.CopyFrom(rpc_status.Status(code=rpc_code.OK, message="primary"))
        else:
            update.status.CopyFrom(
                rpc_status.Status(code=rpc_code.ALREADY_EXISTS, message="backup (not primary)")
            )
        return p4r.StreamMessageResponse(arbitration=update)
