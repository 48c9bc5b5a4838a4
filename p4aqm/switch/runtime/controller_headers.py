"""Packet-in and packet-out metadata: the @controller_header headers as bytes on the wire.

A packet-out's metadata becomes the packet_out header, prepended to the payload before the
packet enters ingress on the CPU port; a packet the program sends to the CPU port starts
with the packet_in header, which becomes the packet-in's metadata. Fields are packed most
significant bit first, in header order, as the deparser emits them.
"""

import logging
from functools import cache

from finsy.proto import p4r

from p4aqm.switch.runtime.codec import decode_uint, encode_uint
from p4aqm.switch.runtime.errors import invalid
from p4aqm.switch.runtime.resources import ControllerHeader

LOG = logging.getLogger("p4aqm.switch.runtime")


def packet_out_bytes(header: ControllerHeader | None, packet: p4r.PacketOut) -> bytes:
    """The frame to inject: the packet_out header built from the metadata, then the payload.

    P4Runtime asks for exactly one value per metadata field, matched by id. A field the
    client leaves out is sent as 0, as simple_switch_grpc's PI server does (clients such
    as ONOS omit padding fields), with a warning; an unknown id or a field given twice is
    refused. A program without a packet_out header takes the payload as it is, so
    metadata is refused.
    """
    if header is None:
        if packet.metadata:
            raise invalid("packet-out: the P4Info has no packet_out controller header")
        return packet.payload
    by_id = {f.id: f for f in header.fields}
    values: dict[int, int] = {}
    for meta in packet.metadata:
        field = by_id.get(meta.metadata_id)
        if field is None:
            raise invalid(f"packet-out: header 'packet_out' has no metadata id {meta.metadata_id}")
        if meta.metadata_id in values:
            raise invalid(f"packet-out: metadata '{field.name}' given twice")
        values[field.id] = decode_uint(meta.value, field.bitwidth, f"packet-out '{field.name}'")
    bits = 0
    for field in header.fields:
        if field.id not in values:
            _warn_missing(field.name)
        bits = (bits << field.bitwidth) | values.get(field.id, 0)
    padding = header.size_bytes * 8 - header.bitwidth
    return (bits << padding).to_bytes(header.size_bytes, "big") + packet.payload


@cache
def _warn_missing(name: str) -> None:
    """Once per field name: a client that leaves a field out usually always does."""
    LOG.warning("packet-out without metadata '%s': sent as 0 (P4Runtime wants all)", name)


def packet_in_message(header: ControllerHeader | None, frame: bytes) -> p4r.PacketIn:
    """The packet-in for a frame sent to the CPU port: the packet_in header stripped into
    metadata (canonical bytestrings, by id), the rest as payload. A frame too short for
    the header is delivered whole, without metadata, rather than dropped unseen."""
    if header is None or len(frame) < header.size_bytes:
        return p4r.PacketIn(payload=frame)
    size = header.size_bytes
    bits = int.from_bytes(frame[:size], "big")
    shift = size * 8
    metadata = []
    for field in header.fields:
        shift -= field.bitwidth
        value = (bits >> shift) & ((1 << field.bitwidth) - 1)
        metadata.append(p4r.PacketMetadata(metadata_id=field.id, value=encode_uint(value)))
    return p4r.PacketIn(payload=frame[size:], metadata=metadata)
