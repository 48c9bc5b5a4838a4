"""The P4Runtime server in-process, over gRPC, in front of a dataplane with memory ports."""

from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from finsy.proto import p4r, rpc_code
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from switch_helpers import (
    NEXT_HOP_MAC,
    ROUTE_PORT,
    ROUTER_MAC,
    Client,
    Program,
    insert,
    route_entry,
    update,
    write_errors,
)

Action = p4r.SetForwardingPipelineConfigRequest
GetType = p4r.GetForwardingPipelineConfigRequest


@pytest.fixture(scope="session")
def l3(l3_program: Any) -> Program:
    return Program.load(l3_program.p4info_path, l3_program.json_path)


@pytest.fixture
def client(server_port: int) -> Iterator[Client]:
    """A client that is primary (election id 10) but has pushed no pipeline."""
    c = Client(server_port, election_id=10)
    c.become_primary()
    yield c
    c.close()


@pytest.fixture
def l3_client(client: Client, l3: Program) -> Client:
    """The primary client, after pushing l3_forward."""
    client.set_pipeline(l3.config(cookie=42))
    return client


def _packet(dst: str, ttl: int = 64) -> bytes:
    frame = (
        Ether(dst="00:00:00:00:00:01", src="00:00:00:00:00:99")
        / IP(src="10.0.0.1", dst=dst, ttl=ttl)
        / UDP(sport=1234, dport=5678)
        / b"payload"
    )
    return bytes(frame)


def _forward(dataplane: Any, dst: str) -> list[tuple[int, bytes]]:
    dataplane.take_output()
    dataplane.inject(1, _packet(dst))
    return dataplane.take_output()


def _rpc_error(call: Any, *args: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call(*args)
    return info.value


# -- capabilities and arbitration ------------------------------------------------------


def test_capabilities(server_port: int) -> None:
    c = Client(server_port)
    version = c.stub.Capabilities(p4r.CapabilitiesRequest()).p4runtime_api_version
    c.close()
    assert tuple(int(x) for x in version.split(".")) >= (1, 4, 0)


def test_highest_election_id_is_primary(server_port: int, l3: Program) -> None:
    low, high = Client(server_port, election_id=5), Client(server_port, election_id=7)
    try:
        first = low.become_primary().arbitration
        assert first.status.code == rpc_code.OK
        assert first.election_id.low == 5

        second = high.become_primary().arbitration
        assert second.status.code == rpc_code.OK
        # The old primary learns that it was demoted.
        demoted = low.streams[0].next().arbitration
        assert demoted.status.code == rpc_code.ALREADY_EXISTS
        assert demoted.election_id.low == 7

        # A backup may not push a pipeline or write.
        error = _rpc_error(low.set_pipeline, l3.config())
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED
        high.set_pipeline(l3.config())
        error = _rpc_error(low.write, insert(route_entry(l3)))
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED
        high.write(insert(route_entry(l3)))

        # When the primary leaves, the backup takes over and is told so.
        high.close()
        promoted = low.streams[0].next().arbitration
        assert promoted.status.code == rpc_code.OK
        low.write(
            p4r.Update(type=p4r.Update.DELETE, entity=p4r.Entity(table_entry=route_entry(l3)))
        )
    finally:
        low.close()
        high.close()


def test_backup_gets_already_exists(server_port: int) -> None:
    primary, backup = Client(server_port, election_id=9), Client(server_port, election_id=3)
    try:
        primary.become_primary()
        reply = backup.become_primary().arbitration
        assert reply.status.code == rpc_code.ALREADY_EXISTS
        assert reply.election_id.low == 9
    finally:
        primary.close()
        backup.close()


def test_duplicate_election_id_closes_the_stream(client: Client) -> None:
    stream = client.stream()
    stream.arbitrate(client.election_id)
    error = stream.next()
    assert isinstance(error, grpc.RpcError)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "election id 10" in error.details()


def test_wrong_device_id(client: Client, l3: Program) -> None:
    stream = client.stream()
    stream.arbitrate(99, device_id=7)
    error = stream.next()
    assert isinstance(error, grpc.RpcError)
    assert error.code() == grpc.StatusCode.NOT_FOUND
    error = _rpc_error(client.set_pipeline, l3.config(), Action.VERIFY_AND_COMMIT, 7)
    assert error.code() == grpc.StatusCode.NOT_FOUND


def test_write_without_arbitration_is_denied(server_port: int, l3: Program) -> None:
    c = Client(server_port, election_id=1)
    try:
        error = _rpc_error(c.set_pipeline, l3.config())
        assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    finally:
        c.close()


# -- pipeline config -------------------------------------------------------------------


def test_get_before_push_fails(client: Client) -> None:
    error = _rpc_error(client.get_pipeline, GetType.ALL)
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "no forwarding pipeline config" in error.details()


def test_push_and_get(l3_client: Client, l3: Program) -> None:
    everything = l3_client.get_pipeline(GetType.ALL)
    assert everything.p4info == l3.p4info
    assert everything.p4_device_config == l3.device_config
    assert everything.cookie.cookie == 42

    cookie = l3_client.get_pipeline(GetType.COOKIE_ONLY)
    assert cookie.cookie.cookie == 42
    assert not cookie.HasField("p4info") and not cookie.p4_device_config

    p4info = l3_client.get_pipeline(GetType.P4INFO_AND_COOKIE)
    assert p4info.p4info == l3.p4info and not p4info.p4_device_config

    device = l3_client.get_pipeline(GetType.DEVICE_CONFIG_AND_COOKIE)
    assert device.p4_device_config == l3.device_config and not device.HasField("p4info")


def test_verify_save_commit(client: Client, l3: Program) -> None:
    client.set_pipeline(l3.config(cookie=1), Action.VERIFY)
    assert (
        _rpc_error(client.get_pipeline, GetType.ALL).code() == grpc.StatusCode.FAILED_PRECONDITION
    )

    error = _rpc_error(client.set_pipeline, None, Action.COMMIT)
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION

    client.set_pipeline(l3.config(cookie=2), Action.VERIFY_AND_SAVE)
    assert (
        _rpc_error(client.get_pipeline, GetType.ALL).code() == grpc.StatusCode.FAILED_PRECONDITION
    )
    client.set_pipeline(None, Action.COMMIT)
    assert client.get_pipeline(GetType.COOKIE_ONLY).cookie.cookie == 2

    error = _rpc_error(client.set_pipeline, l3.config(), Action.RECONCILE_AND_COMMIT)
    assert error.code() == grpc.StatusCode.UNIMPLEMENTED


def test_bad_configs_are_rejected(client: Client, l3: Program) -> None:
    not_json = p4r.ForwardingPipelineConfig(p4info=l3.p4info, p4_device_config=b"{not json")
    error = _rpc_error(client.set_pipeline, not_json)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    no_p4info = p4r.ForwardingPipelineConfig(p4_device_config=l3.device_config)
    error = _rpc_error(client.set_pipeline, no_p4info)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "p4info" in error.details()


def test_write_before_push_fails(client: Client, l3: Program) -> None:
    error = _rpc_error(client.write, insert(route_entry(l3)))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION


# -- table entries and forwarding ------------------------------------------------------


def test_route_insert_read_modify_delete(l3_client: Client, l3: Program, dataplane: Any) -> None:
    # The program's default action drops.
    assert _forward(dataplane, "10.0.1.5") == []

    entry = route_entry(l3)
    l3_client.write(insert(entry))
    [read] = l3_client.read(p4r.Entity(table_entry=p4r.TableEntry(table_id=entry.table_id)))
    assert read.table_entry.match == entry.match
    # Read returns canonical bytestrings: the port 2 was written as two bytes.
    assert read.table_entry.action.action.params[2].value == b"\x02"

    [(port, packet)] = _forward(dataplane, "10.0.1.5")
    assert port == ROUTE_PORT
    out = Ether(packet)
    assert bytes.fromhex(out.dst.replace(":", "")) == NEXT_HOP_MAC
    assert bytes.fromhex(out.src.replace(":", "")) == ROUTER_MAC
    assert out[IP].ttl == 63
    recomputed = out[IP].copy()
    del recomputed.chksum
    assert IP(bytes(recomputed)).chksum == out[IP].chksum
    assert _forward(dataplane, "10.0.2.5") == []

    l3_client.write(update(p4r.Update.MODIFY, route_entry(l3, port=3)))
    assert [p for p, _ in _forward(dataplane, "10.0.1.5")] == [3]

    l3_client.write(update(p4r.Update.DELETE, route_entry(l3)))
    assert l3_client.read(p4r.Entity(table_entry=p4r.TableEntry())) == []
    assert _forward(dataplane, "10.0.1.5") == []


def test_longest_prefix_wins(l3_client: Client, l3: Program, dataplane: Any) -> None:
    l3_client.write(
        insert(route_entry(l3, prefix=bytes([10, 0, 0, 0]), prefix_len=8, port=1)),
        insert(route_entry(l3, prefix=bytes([10, 0, 1, 0]), prefix_len=24, port=3)),
    )
    assert [p for p, _ in _forward(dataplane, "10.0.1.9")] == [3]
    assert [p for p, _ in _forward(dataplane, "10.9.9.9")] == [1]
    assert len(l3_client.read(p4r.Entity(table_entry=p4r.TableEntry()))) == 2


def test_default_action(l3_client: Client, l3: Program, dataplane: Any) -> None:
    table_id = l3.table_id("MyIngress.ipv4_lpm")
    query = p4r.Entity(table_entry=p4r.TableEntry(table_id=table_id, is_default_action=True))
    [initial] = l3_client.read(query)
    assert initial.table_entry.action.action.action_id == l3.action_id("MyIngress.drop")

    default = route_entry(l3, port=1)
    del default.match[:]
    default.is_default_action = True
    default.controller_metadata = 7
    default.metadata = b"cookie"
    l3_client.write(update(p4r.Update.MODIFY, default))
    [read] = l3_client.read(query)
    assert read.table_entry.action.action.action_id == l3.action_id("MyIngress.ipv4_forward")
    # The client's cookies come back, as PI keeps them.
    assert (read.table_entry.controller_metadata, read.table_entry.metadata) == (7, b"cookie")
    assert [p for p, _ in _forward(dataplane, "192.168.0.1")] == [1]
    # Wildcard reads do not return the default entry.
    assert l3_client.read(p4r.Entity(table_entry=p4r.TableEntry(table_id=table_id))) == []

    error = _rpc_error(l3_client.write, insert(default))
    assert write_errors(error)[0][0] == grpc.StatusCode.INVALID_ARGUMENT

    # MODIFY without an action restores the program's default.
    l3_client.write(
        update(p4r.Update.MODIFY, p4r.TableEntry(table_id=table_id, is_default_action=True))
    )
    assert _forward(dataplane, "192.168.0.1") == []
    [reset] = l3_client.read(query)
    assert (reset.table_entry.controller_metadata, reset.table_entry.metadata) == (0, b"")


def test_per_update_errors(l3_client: Client, l3: Program) -> None:
    good = route_entry(l3)
    unknown_table = route_entry(l3)
    unknown_table.table_id = 0x02FFFFFF
    wide_port = route_entry(l3, prefix=bytes([10, 0, 2, 0]), port=512)  # port is bit<9>
    missing = route_entry(l3, prefix=bytes([10, 0, 3, 0]))
    error = _rpc_error(
        l3_client.write,
        insert(good),
        insert(unknown_table),
        insert(wide_port),
        insert(good),
        update(p4r.Update.DELETE, missing),
    )
    errors = write_errors(error)
    assert [code for code, _ in errors] == [
        grpc.StatusCode.OK,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.OUT_OF_RANGE,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.NOT_FOUND,
    ]
    assert "port" in errors[2][1] and "9 bits" in errors[2][1]
    # The good update of the batch was applied (CONTINUE_ON_ERROR).
    assert len(l3_client.read(p4r.Entity(table_entry=p4r.TableEntry()))) == 1


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda e: setattr(e.match[0].lpm, "prefix_len", 33), "prefix length"),
        (lambda e: setattr(e.match[0].lpm, "value", bytes([10, 0, 1, 1])), "beyond the /24"),
        (lambda e: setattr(e.match[0], "field_id", 9), "no match field with id 9"),
        (lambda e: e.action.action.params.pop(), "missing parameter"),
        (lambda e: setattr(e.action.action, "action_id", 1), "no action with id 1"),
        (lambda e: setattr(e, "priority", 5), "priority must be 0"),
        (lambda e: setattr(e.action.action.params[0], "value", b""), "empty bytestring"),
    ],
)
def test_invalid_entries(l3_client: Client, l3: Program, mutate: Any, message: str) -> None:
    entry = route_entry(l3)
    mutate(entry)
    error = _rpc_error(l3_client.write, insert(entry))
    [(code, text)] = write_errors(error)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert message in text


def test_unsupported_entities(l3_client: Client) -> None:
    extern = p4r.Entity(extern_entry=p4r.ExternEntry(extern_type_id=1, extern_id=1))
    error = _rpc_error(l3_client.read, extern)
    assert error.code() == grpc.StatusCode.UNIMPLEMENTED
    assert "extern_entry" in error.details()
    error = _rpc_error(l3_client.write, p4r.Update(type=p4r.Update.INSERT, entity=extern))
    [(code, text)] = write_errors(error)
    assert code == grpc.StatusCode.UNIMPLEMENTED and "extern_entry" in text


def test_read_unknown_table(l3_client: Client) -> None:
    error = _rpc_error(l3_client.read, p4r.Entity(table_entry=p4r.TableEntry(table_id=0x02FFFFFF)))
    assert error.code() == grpc.StatusCode.NOT_FOUND


def test_empty_entities_are_invalid(l3_client: Client) -> None:
    error = _rpc_error(l3_client.read, p4r.Entity())
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    error = _rpc_error(l3_client.write, p4r.Update(type=p4r.Update.INSERT))
    [(code, text)] = write_errors(error)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "no entity" in text
