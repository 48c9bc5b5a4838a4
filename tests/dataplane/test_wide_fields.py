"""Fields wider than the 128 bits a field value holds (BMv2 takes any width): the switch
keeps one in parts of at most 128 bits, so it is extracted, emitted, copied and
compared with its header, and is a whole-header checksum input; reading it as a value
is refused by name at load."""

import json

import pytest
from one_action import (
    STANDARD_METADATA,
    STANDARD_METADATA_TYPE,
    forward,
    ingress_action,
    one_state_parser,
)

from p4aqm.switch._dataplane import Dataplane


def field(h: str, f: str) -> dict:
    return {"type": "field", "value": [h, f]}


def param(operation: dict) -> dict:
    """A primitive parameter holding an operation: wrapped twice."""
    return {"type": "expression", "value": {"type": "expression", "value": operation}}


def program(primitives: list[dict]) -> dict:
    """w(a 8, wide 200, b 8) and a copy of its type, c; the deparser emits w, then c."""
    wide_t = {"name": "wide_t", "fields": [["a", 8, False], ["wide", 200, False], ["b", 8, False]]}
    return {
        "header_types": [STANDARD_METADATA_TYPE, wide_t],
        "headers": [
            STANDARD_METADATA,
            {"name": "w", "id": 1, "header_type": "wide_t", "metadata": False},
            {"name": "c", "id": 2, "header_type": "wide_t", "metadata": False},
        ],
        "parsers": one_state_parser(
            [{"op": "extract", "parameters": [{"type": "regular", "value": "w"}]}]
        ),
        "deparsers": [{"name": "deparser", "order": ["w", "c"]}],
        **ingress_action(primitives),
    }


PACKET = bytes([0xA1]) + bytes(range(1, 26)) + bytes([0xB2]) + b"\xff"


def test_a_wide_field_round_trips_in_order() -> None:
    assert forward(program([]), PACKET) == PACKET


def test_a_header_copy_carries_the_wide_field() -> None:
    copy = {
        "op": "assign_header",
        "parameters": [{"type": "header", "value": "c"}, {"type": "header", "value": "w"}],
    }
    header = PACKET[:-1]
    assert forward(program([copy]), PACKET) == header + header + b"\xff"


@pytest.mark.parametrize(
    ("primitive", "message"),
    [
        (
            {"op": "assign", "parameters": [field("w", "a"), field("w", "wide")]},
            "field 'w.wide' is 200 bits wide; the switch reads fields of at most 128 bits",
        ),
        (
            {
                "op": "assign",
                "parameters": [
                    param(
                        {"op": "access_field", "left": {"type": "header", "value": "w"}, "right": 2}
                    ),
                    {"type": "hexstr", "value": "0x01"},
                ],
            },
            "access_field into header 'w', which has a field over 128 bits",
        ),
    ],
)
def test_reading_a_wide_field_as_a_value_is_refused(primitive: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Dataplane().load_pipeline(json.dumps(program([primitive])).encode())
