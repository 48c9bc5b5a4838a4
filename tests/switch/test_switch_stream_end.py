"""A StreamChannel's arbitration ends with the stream: when the client half-closes it
(its request iterator ends), the server releases it at once and runs the next election,
as P4Runtime and PI do.

Every wait here is for an event (a message, the end of a stream), bounded by generous
deadlines that only catch hangs.
"""

import queue
from typing import Any

import grpc
import pytest
from finsy.proto import p4r, p4r_grpc, rpc_code
from switch_helpers import Client, Program, Stream, insert

# The deadline of every raw stream, so that a server that never answers fails the test.
STREAM_DEADLINE_S = 60
FRAME = bytes.fromhex("0000000000020000000000010800") + bytes(1400)
# Unread packet-ins: megabytes, many times a client's flow-control window, so that the
# server cannot flush them to a client that does not read.
UNREAD_PACKET_INS = 3000


class RawStream:
    """A StreamChannel that the test reads by hand, so that it can leave messages unread."""

    def __init__(self, stub: p4r_grpc.P4RuntimeStub) -> None:
        self._out: queue.Queue[p4r.StreamMessageRequest | None] = queue.Queue()
        self.call = stub.StreamChannel(iter(self._out.get, None), timeout=STREAM_DEADLINE_S)

    def arbitrate(self, election_id: int) -> p4r.MasterArbitrationUpdate:
        update = p4r.MasterArbitrationUpdate(
            device_id=0, election_id=p4r.Uint128(high=0, low=election_id)
        )
        self._out.put(p4r.StreamMessageRequest(arbitration=update))
        return next(self.call).arbitration

    def half_close(self) -> None:
        """End the request iterator, as a client that is done with the stream does."""
        self._out.put(None)

    def wait_for_end(self) -> list[p4r.StreamMessageResponse]:
        """The messages left on the stream, once the server has ended it with OK."""
        rest = list(self.call)
        assert self.call.code() == grpc.StatusCode.OK, self.call.details()
        return rest


def _next_arbitration(stream: Stream) -> p4r.MasterArbitrationUpdate:
    """The next arbitration update on `stream`, skipping packet-ins."""
    while True:
        message = stream.next()
        assert isinstance(message, p4r.StreamMessageResponse), message
        if message.WhichOneof("update") == "arbitration":
            return message.arbitration


def test_reconnect_after_half_close_is_primary(server_port: int) -> None:
    client = Client(server_port, election_id=10)
    try:
        for attempt in range(20):
            stream = RawStream(client.stub)
            reply = stream.arbitrate(client.election_id)
            assert reply.status.code == rpc_code.OK, (attempt, reply)
            stream.half_close()
            # The server ends the stream when the client does, after releasing its
            # arbitration: that end is the event the next attempt waits for.
            assert stream.wait_for_end() == []
    finally:
        client.close()


@pytest.mark.parametrize("end", ["half-close", "cancel", "close-channel"])
def test_backup_is_promoted_when_the_primary_ends_its_stream(server_port: int, end: str) -> None:
    primary, backup = Client(server_port, election_id=10), Client(server_port, election_id=5)
    try:
        stream = RawStream(primary.stub)
        assert stream.arbitrate(10).status.code == rpc_code.OK
        reply = backup.become_primary().arbitration
        assert reply.status.code == rpc_code.ALREADY_EXISTS
        assert reply.election_id.low == 10

        if end == "half-close":
            stream.half_close()
        elif end == "cancel":
            stream.call.cancel()
        else:
            primary.channel.close()
        promoted = _next_arbitration(backup.streams[0])
        assert promoted.status.code == rpc_code.OK
        assert promoted.election_id.low == 5
        if end == "half-close":
            assert stream.wait_for_end() == []
    finally:
        primary.close()
        backup.close()


def _to_cpu(externs: Program, in_port: int) -> p4r.TableEntry:
    return p4r.TableEntry(
        table_id=externs.table_id("MyIngress.forward"),
        match=[p4r.FieldMatch(field_id=1, exact={"value": bytes([in_port])})],
        action=p4r.TableAction(action=p4r.Action(action_id=externs.action_id("MyIngress.to_cpu"))),
    )


def test_half_close_releases_before_unread_messages_are_flushed(
    externs_port: int, externs: Program, cpu_dataplane: Any
) -> None:
    """A primary that half-closes while megabytes of packet-ins wait for it, unread,
    is released at once: the release does not wait for the client to read them."""
    primary, backup = Client(externs_port, election_id=10), Client(externs_port, election_id=5)
    try:
        stream = RawStream(primary.stub)
        assert stream.arbitrate(10).status.code == rpc_code.OK
        assert backup.become_primary().arbitration.status.code == rpc_code.ALREADY_EXISTS
        primary.set_pipeline(externs.config())
        primary.write(insert(_to_cpu(externs, 2)))
        for _ in range(UNREAD_PACKET_INS):
            cpu_dataplane.inject(2, FRAME)
        # Packet-ins are flowing to the primary; it reads this one only.
        assert next(stream.call).WhichOneof("update") == "packet"

        stream.half_close()
        promoted = _next_arbitration(backup.streams[0])
        assert promoted.status.code == rpc_code.OK
        assert promoted.election_id.low == 5

        # The old primary reconnects with its election id, and is primary again.
        again = RawStream(primary.stub)
        assert again.arbitrate(10).status.code == rpc_code.OK
        demoted = _next_arbitration(backup.streams[0])
        assert demoted.status.code == rpc_code.ALREADY_EXISTS
        assert demoted.election_id.low == 10
        again.half_close()
        stream.call.cancel()
    finally:
        primary.close()
        backup.close()
