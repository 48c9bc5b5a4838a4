"""Packet-in/packet-out metadata <-> controller headers, on runtime_externs' P4Info."""

from typing import Any

import grpc
import pytest
from finsy.proto import p4r
from switch_helpers import Program

from p4aqm.switch.runtime.controller_headers import (
    _warn_missing,
    packet_in_message,
    packet_out_bytes,
)
from p4aqm.switch.runtime.errors import P4RuntimeError
from p4aqm.switch.runtime.resources import ControllerHeader, MetadataField, Resources


@pytest.fixture(scope="module")
def resources(externs_program: Any) -> Resources:
    program = Program.load(externs_program.p4info_path, externs_program.json_path)
    return Resources(program.p4info)


def _out(*metadata: tuple[int, bytes]) -> p4r.PacketOut:
    return p4r.PacketOut(
        payload=b"frame",
        metadata=[p4r.PacketMetadata(metadata_id=i, value=v) for i, v in metadata],
    )


def test_packet_out_header_is_prepended(resources: Resources) -> None:
    # egress_port 0x103 (9 bits), pad 0x05 (7 bits): 1_0000_0011 000_0101
    frame = packet_out_bytes(resources.packet_out, _out((2, b"\x05"), (1, b"\x01\x03")))
    assert frame == bytes([0b10000001, 0b10000101]) + b"frame"


def test_a_field_left_out_is_sent_as_zero(
    resources: Resources, caplog: pytest.LogCaptureFixture
) -> None:
    # As simple_switch_grpc's PI server does: ONOS, for one, sends no padding fields.
    _warn_missing.cache_clear()  # warned once per field name, perhaps by an earlier test
    frame = packet_out_bytes(resources.packet_out, _out((1, b"\x01\x03")))
    assert frame == bytes([0b10000001, 0b10000000]) + b"frame"
    assert "without metadata 'pad'" in caplog.text


@pytest.mark.parametrize(
    ("metadata", "code", "message"),
    [
        ([(1, b"\x02"), (2, b"\x00"), (3, b"\x00")], grpc.StatusCode.INVALID_ARGUMENT, "id 3"),
        ([(1, b"\x02"), (1, b"\x02"), (2, b"\x00")], grpc.StatusCode.INVALID_ARGUMENT, "twice"),
        ([(1, b"\x02\x00"), (2, b"\x00")], grpc.StatusCode.OUT_OF_RANGE, "9 bits"),
        ([(1, b""), (2, b"\x00")], grpc.StatusCode.INVALID_ARGUMENT, "empty"),
    ],
)
def test_bad_packet_out_metadata(
    resources: Resources, metadata: list[tuple[int, bytes]], code: grpc.StatusCode, message: str
) -> None:
    with pytest.raises(P4RuntimeError) as info:
        packet_out_bytes(resources.packet_out, _out(*metadata))
    assert info.value.code == code
    assert message in info.value.message


def test_without_packet_out_header_the_payload_goes_as_is() -> None:
    assert packet_out_bytes(None, p4r.PacketOut(payload=b"raw")) == b"raw"
    with pytest.raises(P4RuntimeError, match="no packet_out controller header"):
        packet_out_bytes(None, _out((1, b"\x01")))


def test_packet_in_header_becomes_metadata(resources: Resources) -> None:
    message = packet_in_message(resources.packet_in, bytes([0b00000001, 0b10000000]) + b"eth")
    assert message.payload == b"eth"
    assert [(m.metadata_id, m.value) for m in message.metadata] == [(1, b"\x03"), (2, b"\x00")]


# As p4c 2.7 wrote ONOS's ecmp.p4: `bit<9> ingress_port` alone in the P4Info, the header
# padded to 2 bytes in the JSON.
PORT_ONLY = (MetadataField(1, "port", 9),)


def test_a_header_of_fields_short_of_a_byte_is_padded_with_zeros() -> None:
    out = ControllerHeader(1, "packet_out", PORT_ONLY)
    assert (
        packet_out_bytes(out, _out((1, b"\x01\x03"))) == bytes([0b10000001, 0b10000000]) + b"frame"
    )
    message = packet_in_message(
        ControllerHeader(2, "packet_in", PORT_ONLY), bytes([0b00000001, 0b11111111]) + b"eth"
    )
    assert message.payload == b"eth"
    assert [(m.metadata_id, m.value) for m in message.metadata] == [(1, b"\x03")]


def test_short_packet_in_is_delivered_whole(resources: Resources) -> None:
    message = packet_in_message(resources.packet_in, b"\x01")
    assert message.payload == b"\x01"
    assert not message.metadata
