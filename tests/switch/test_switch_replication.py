"""PacketReplicationEngineEntry: multicast groups and clone sessions, written and read."""

from typing import Any

import grpc
import pytest
from finsy.proto import p4r
from switch_helpers import Client, Program, insert, write_errors

FRAME = bytes(14) + b"payload"


def _group(group_id: int, *replicas: tuple[int, int]) -> p4r.Entity:
    entry = p4r.MulticastGroupEntry(
        multicast_group_id=group_id,
        replicas=[p4r.Replica(egress_port=port, instance=rid) for port, rid in replicas],
    )
    return p4r.Entity(
        packet_replication_engine_entry=p4r.PacketReplicationEngineEntry(
            multicast_group_entry=entry
        )
    )


def _session(session_id: int, *replicas: tuple[int, int], length: int = 0) -> p4r.Entity:
    entry = p4r.CloneSessionEntry(
        session_id=session_id,
        replicas=[p4r.Replica(port=bytes([port]), instance=rid) for port, rid in replicas],
        packet_length_bytes=length,
    )
    return p4r.Entity(
        packet_replication_engine_entry=p4r.PacketReplicationEngineEntry(clone_session_entry=entry)
    )


def _write(client: Client, kind: int, *entities: p4r.Entity) -> None:
    client.write(*[p4r.Update(type=kind, entity=e) for e in entities])


def test_groups_and_sessions(externs_client: Client) -> None:
    insert, modify, delete = p4r.Update.INSERT, p4r.Update.MODIFY, p4r.Update.DELETE
    _write(externs_client, insert, _group(1, (1, 0), (2, 0)), _session(5, (3, 1), length=64))
    everything = externs_client.read(
        p4r.Entity(packet_replication_engine_entry=p4r.PacketReplicationEngineEntry())
    )
    assert everything == [_group(1, (1, 0), (2, 0)), _session(5, (3, 1), length=64)]
    _write(externs_client, modify, _group(1, (3, 7)))
    assert externs_client.read(_group(1)) == [_group(1, (3, 7))]
    assert externs_client.read(_group(0)) == [_group(1, (3, 7))]
    assert externs_client.read(_session(0)) == [_session(5, (3, 1), length=64)]
    _write(externs_client, delete, _group(1), _session(5))
    assert externs_client.read(_group(0)) == []
    assert externs_client.read(_session(0)) == []


@pytest.mark.parametrize(
    ("kind", "entity", "code", "message"),
    [
        (p4r.Update.INSERT, _group(0, (1, 0)), "INVALID_ARGUMENT", "id 0 is reserved"),
        (p4r.Update.INSERT, _group(2, (1, 0), (1, 0)), "INVALID_ARGUMENT", "twice"),
        (p4r.Update.INSERT, _group(2, (600, 0)), "INVALID_ARGUMENT", "0..511"),
        (p4r.Update.INSERT, _group(2, (1, 1 << 16)), "INVALID_ARGUMENT", "16 bits"),
        (p4r.Update.MODIFY, _group(9, (1, 0)), "NOT_FOUND", "multicast group 9"),
        (p4r.Update.DELETE, _session(9), "NOT_FOUND", "clone session 9"),
        (p4r.Update.INSERT, _session(0, (1, 0)), "INVALID_ARGUMENT", "reserved"),
    ],
)
def test_bad_entries(
    externs_client: Client, kind: int, entity: p4r.Entity, code: str, message: str
) -> None:
    with pytest.raises(grpc.RpcError) as info:
        externs_client.write(p4r.Update(type=kind, entity=entity))
    [(status, text)] = write_errors(info.value)
    assert status.name == code
    assert message in text


def test_reads_follow_pi(externs_client: Client) -> None:
    """As simple_switch_grpc's PI server answers: replicas sorted by (instance, port),
    a `port` at the length the client sent it, and NOT_FOUND for an id that is not there."""
    _write(externs_client, p4r.Update.INSERT, _group(4, (3, 2), (2, 2), (1, 5), (3, 0)))
    assert externs_client.read(_group(4)) == [_group(4, (3, 0), (2, 2), (3, 2), (1, 5))]
    padded = _session(6)
    padded.packet_replication_engine_entry.clone_session_entry.replicas.add(
        port=b"\x00\x00\x00\x03", instance=1
    )
    _write(externs_client, p4r.Update.INSERT, padded)
    assert externs_client.read(_session(6)) == [padded]
    for missing, what in ((_group(40), "multicast group 40"), (_session(60), "clone session 60")):
        with pytest.raises(grpc.RpcError) as info:
            externs_client.read(missing)
        assert info.value.code() == grpc.StatusCode.NOT_FOUND
        assert what in str(info.value.details())


def test_insert_twice(externs_client: Client) -> None:
    _write(externs_client, p4r.Update.INSERT, _group(3, (1, 0)))
    with pytest.raises(grpc.RpcError) as info:
        _write(externs_client, p4r.Update.INSERT, _group(3, (2, 0)))
    [(status, _)] = write_errors(info.value)
    assert status == grpc.StatusCode.ALREADY_EXISTS


def _forward(externs: Program, action: str, *params: bytes) -> p4r.Update:
    return insert(
        p4r.TableEntry(
            table_id=externs.table_id("MyIngress.forward"),
            match=[p4r.FieldMatch(field_id=1, exact={"value": b"\x01"})],
            action=p4r.TableAction(
                action=p4r.Action(
                    action_id=externs.action_id(f"MyIngress.{action}"),
                    params=[p4r.Action.Param(param_id=i, value=v) for i, v in enumerate(params, 1)],
                )
            ),
        )
    )


def test_multicast_group_replicates(
    externs_client: Client, externs: Program, cpu_dataplane: Any
) -> None:
    _write(externs_client, p4r.Update.INSERT, _group(7, (2, 1), (3, 2)))
    externs_client.write(_forward(externs, "multicast", b"\x07"))
    cpu_dataplane.take_output()
    cpu_dataplane.inject(1, FRAME)
    assert sorted(port for port, _ in cpu_dataplane.take_output()) == [2, 3]


def test_clone_session_copies(externs_client: Client, externs: Program, cpu_dataplane: Any) -> None:
    _write(externs_client, p4r.Update.INSERT, _session(5, (3, 0)))
    externs_client.write(_forward(externs, "send_and_clone", b"\x02", b"\x05"))
    cpu_dataplane.take_output()
    cpu_dataplane.inject(1, FRAME)
    assert sorted(port for port, _ in cpu_dataplane.take_output()) == [2, 3]
