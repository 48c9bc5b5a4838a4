"""P4Runtime bytestrings: canonical form and bitwidth checks."""

import grpc
import pytest

from p4aqm.switch.runtime.codec import canonical, decode_uint, encode_uint
from p4aqm.switch.runtime.errors import P4RuntimeError


@pytest.mark.parametrize(
    ("data", "bitwidth", "expected"),
    [
        (b"\x00\x00\x0a\x00\x01\x00", 48, b"\x0a\x00\x01\x00"),
        (b"\x00\x02", 9, b"\x02"),
        (b"\x01\xff", 9, b"\x01\xff"),
        (b"\x00\x00", 16, b"\x00"),
        (b"\xff", 8, b"\xff"),
        # Zeros beyond the field's bytes, as PI accepts them (a 4-byte port).
        (b"\x00\x00\x00\x01", 9, b"\x01"),
    ],
)
def test_canonical(data: bytes, bitwidth: int, expected: bytes) -> None:
    assert canonical(data, bitwidth, "f") == expected


def test_encode_zero_is_one_byte() -> None:
    assert encode_uint(0) == b"\x00"


@pytest.mark.parametrize(
    ("data", "bitwidth", "code", "message"),
    [
        (b"\x02\x00", 9, grpc.StatusCode.OUT_OF_RANGE, "value 0x200 does not fit in 9 bits"),
        (b"\x01\x00\x00", 9, grpc.StatusCode.OUT_OF_RANGE, "value 0x10000 does not fit"),
        (b"", 8, grpc.StatusCode.INVALID_ARGUMENT, "empty bytestring"),
    ],
)
def test_rejects(data: bytes, bitwidth: int, code: grpc.StatusCode, message: str) -> None:
    with pytest.raises(P4RuntimeError) as info:
        decode_uint(data, bitwidth, "action 'a' parameter 'port'")
    assert info.value.code == code
    assert message in info.value.message
    assert "parameter 'port'" in info.value.message


def test_unsized_fields_pass_through() -> None:
    assert canonical(b"\x00name", 0, "f") == b"\x00name"
