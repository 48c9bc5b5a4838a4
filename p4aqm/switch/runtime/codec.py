"""P4Runtime bytestrings: checked against a field's bitwidth, stored in canonical form.

The canonical form is the shortest big-endian encoding (zero is one zero byte). Clients
may also send values padded with leading zeros, to the field's byte width or, as PI
accepts, beyond it (a 4-byte port for a bit<9> field); the server keeps the canonical
form so that reads return it and equal keys compare equal.
"""

import grpc

from p4aqm.switch.runtime.errors import P4RuntimeError, invalid

PORT_BITS = 9  # v1model's port numbers (egress_spec, egress_port)


def decode_uint(data: bytes, bitwidth: int, what: str) -> int:
    """The unsigned value of `data`, after checking that it fits a `bitwidth`-bit field."""
    if not data:
        raise invalid(f"{what}: empty bytestring")
    value = int.from_bytes(data, "big")
    if value >> bitwidth:
        raise P4RuntimeError(
            grpc.StatusCode.OUT_OF_RANGE,
            f"{what}: value {value:#x} does not fit in {bitwidth} bits",
        )
    return value


def encode_uint(value: int) -> bytes:
    """The canonical bytestring of a non-negative integer."""
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


def is_canonical(data: bytes, bitwidth: int) -> bool:
    """Whether `data` is already the canonical form of a value that fits `bitwidth`: the
    common case, checked without building an error message."""
    return (
        bitwidth > 0
        and 0 < len(data) <= (bitwidth + 7) // 8
        and (data[0] != 0 or len(data) == 1)
        and not int.from_bytes(data, "big") >> bitwidth
    )


def canonical(data: bytes, bitwidth: int, what: str) -> bytes:
    """`data` checked against `bitwidth` and re-encoded in canonical form.

    A bitwidth of 0 marks a field without a fixed width (P4Runtime-translated or string
    types); its bytes are passed through unchanged.
    """
    if bitwidth == 0:
        return data
    return encode_uint(decode_uint(data, bitwidth, what))
