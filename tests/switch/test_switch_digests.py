"""DigestEntry configs, and DigestList messages with acks on the StreamChannel."""

import queue
from typing import Any

import grpc
import pytest
from finsy.proto import p4d, p4r
from switch_helpers import Client, Program, write_errors

SRC_MAC = bytes.fromhex("0000000000aa")
FRAME = bytes.fromhex("000000000002") + SRC_MAC + b"\x08\x00payload"


def _digest(externs: Program, config: bool = True) -> p4r.Entity:
    entry = p4r.DigestEntry(digest_id=externs.id_of("digests", "learn_t"))
    if config:
        entry.config.CopyFrom(p4r.DigestEntry.Config(max_timeout_ns=0, max_list_size=1))
    return p4r.Entity(digest_entry=entry)


def _write(client: Client, kind: int, entity: p4r.Entity) -> None:
    client.write(p4r.Update(type=kind, entity=entity))


def _next_of(client: Client, kind: str) -> p4r.StreamMessageResponse:
    while True:
        message = client.streams[0].next()
        assert isinstance(message, p4r.StreamMessageResponse), message
        if message.WhichOneof("update") == kind:
            return message


def test_digest_list_and_ack(externs_client: Client, externs: Program, cpu_dataplane: Any) -> None:
    _write(externs_client, p4r.Update.INSERT, _digest(externs))
    cpu_dataplane.inject(1, FRAME)
    digest = _next_of(externs_client, "digest").digest
    assert digest.digest_id == externs.id_of("digests", "learn_t")
    [sample] = digest.data
    assert sample == p4d.P4Data(
        struct=p4d.P4StructLike(
            members=[p4d.P4Data(bitstring=b"\xaa"), p4d.P4Data(bitstring=b"\x01")]
        )
    )
    ack = p4r.DigestListAck(digest_id=digest.digest_id, list_id=digest.list_id)
    externs_client.streams[0].send(p4r.StreamMessageRequest(digest_ack=ack))
    # A second ack of the same list is ignored, as PI does: nothing comes on the stream.
    externs_client.streams[0].send(p4r.StreamMessageRequest(digest_ack=ack))
    with pytest.raises(queue.Empty):
        externs_client.streams[0].next(timeout=0.5)


def test_unconfigured_digests_are_not_sent(
    externs_client: Client, externs: Program, cpu_dataplane: Any
) -> None:
    cpu_dataplane.inject(1, FRAME)
    with pytest.raises(queue.Empty):
        externs_client.streams[0].next(timeout=0.5)


def test_digest_entry_lifecycle(externs_client: Client, externs: Program) -> None:
    query = p4r.Entity(digest_entry=p4r.DigestEntry())
    assert externs_client.read(query) == []
    _write(externs_client, p4r.Update.INSERT, _digest(externs))
    assert externs_client.read(query) == [_digest(externs)]
    with pytest.raises(grpc.RpcError) as info:
        _write(externs_client, p4r.Update.INSERT, _digest(externs))
    assert write_errors(info.value)[0][0] == grpc.StatusCode.ALREADY_EXISTS
    _write(externs_client, p4r.Update.DELETE, _digest(externs, config=False))
    assert externs_client.read(query) == []
    with pytest.raises(grpc.RpcError) as info:
        _write(externs_client, p4r.Update.MODIFY, _digest(externs))
    assert write_errors(info.value)[0][0] == grpc.StatusCode.NOT_FOUND
    # As PI: a read of a digest not configured is NOT_FOUND, and an INSERT without a
    # config takes every field as 0.
    with pytest.raises(grpc.RpcError) as info:
        externs_client.read(_digest(externs, config=False))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    _write(externs_client, p4r.Update.INSERT, _digest(externs, config=False))
    [read] = externs_client.read(query)
    assert read.digest_entry.config == p4r.DigestEntry.Config()
    with pytest.raises(grpc.RpcError) as info:
        externs_client.read(p4r.Entity(digest_entry=p4r.DigestEntry(digest_id=0x17000001)))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND


def test_unacked_samples_are_not_repeated(
    externs_client: Client, externs: Program, cpu_dataplane: Any
) -> None:
    entity = _digest(externs)
    entity.digest_entry.config.ack_timeout_ns = 60 * 10**9
    _write(externs_client, p4r.Update.INSERT, entity)
    cpu_dataplane.inject(1, FRAME)
    cpu_dataplane.inject(1, FRAME)
    first = _next_of(externs_client, "digest").digest
    # The same sample, unacknowledged: no second list.
    with pytest.raises(queue.Empty):
        externs_client.streams[0].next(timeout=0.5)
    ack = p4r.DigestListAck(digest_id=first.digest_id, list_id=first.list_id)
    externs_client.streams[0].send(p4r.StreamMessageRequest(digest_ack=ack))
    # Once acknowledged (the ack goes by the stream, so its effect is awaited), the
    # sample may be sent again.
    second = None
    for _ in range(100):
        cpu_dataplane.inject(1, FRAME)
        try:
            message = externs_client.streams[0].next(timeout=0.1)
        except queue.Empty:
            continue
        assert isinstance(message, p4r.StreamMessageResponse), message
        second = message.digest
        break
    assert second is not None, "no digest after the ack"
    assert second.list_id == first.list_id + 1
    assert second.data == first.data
