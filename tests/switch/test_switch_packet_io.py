"""Packet-in and packet-out on the StreamChannel, through CPU port 255."""

from typing import Any

from finsy.proto import p4r, rpc_code
from switch_helpers import Client, Program, insert, output_of

FRAME = bytes.fromhex("0000000000020000000000010800") + b"payload"


def _to_cpu(externs: Program, in_port: int) -> p4r.TableEntry:
    return p4r.TableEntry(
        table_id=externs.table_id("MyIngress.forward"),
        match=[p4r.FieldMatch(field_id=1, exact={"value": bytes([in_port])})],
        action=p4r.TableAction(action=p4r.Action(action_id=externs.action_id("MyIngress.to_cpu"))),
    )


def _packet_out(*metadata: tuple[int, bytes]) -> p4r.StreamMessageRequest:
    return p4r.StreamMessageRequest(
        packet=p4r.PacketOut(
            payload=FRAME,
            metadata=[p4r.PacketMetadata(metadata_id=i, value=v) for i, v in metadata],
        )
    )


def test_packet_in(externs_client: Client, externs: Program, cpu_dataplane: Any) -> None:
    externs_client.write(insert(_to_cpu(externs, 2)))
    cpu_dataplane.inject(2, FRAME)
    message = externs_client.streams[0].next()
    assert message.WhichOneof("update") == "packet", message
    assert message.packet.payload == FRAME
    assert [(m.metadata_id, m.value) for m in message.packet.metadata] == [
        (1, b"\x02"),
        (2, b"\x00"),
    ]


def test_packet_out(externs_client: Client, cpu_dataplane: Any) -> None:
    cpu_dataplane.take_output()
    externs_client.streams[0].send(_packet_out((1, b"\x03"), (2, b"\x00")))
    assert output_of(cpu_dataplane) == [(3, FRAME)]


def test_packet_out_without_its_padding_field(externs_client: Client, cpu_dataplane: Any) -> None:
    cpu_dataplane.take_output()
    externs_client.streams[0].send(_packet_out((1, b"\x03")))
    assert output_of(cpu_dataplane) == [(3, FRAME)]


def test_bad_packet_out_is_answered_on_the_stream(externs_client: Client) -> None:
    stream = externs_client.streams[0]
    stream.send(_packet_out((1, b"\x03"), (2, b"\x00"), (9, b"\x00")))
    message = stream.next()
    assert message.error.canonical_code == rpc_code.INVALID_ARGUMENT
    assert "no metadata id 9" in message.error.message
    assert message.error.packet_out.packet_out.payload == FRAME
    # The stream stays usable.
    stream.send(_packet_out((1, b"\x03"), (2, b"\x00"), (2, b"\x00")))
    assert "given twice" in stream.next().error.message


def test_backup_may_not_send_packets(externs_client: Client, externs_port: int) -> None:
    backup = Client(externs_port, election_id=5)
    try:
        assert backup.become_primary().arbitration.status.code == rpc_code.ALREADY_EXISTS
        backup.streams[0].send(_packet_out((1, b"\x03"), (2, b"\x00")))
        error = backup.streams[0].next().error
        assert error.canonical_code == rpc_code.PERMISSION_DENIED
        assert "only the primary" in error.message
    finally:
        backup.close()
