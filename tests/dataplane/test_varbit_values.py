"""Varbit values outside headers in the JSON p4c gives them: a varbit variable is a
metadata instance of type `$varbit<N>` with one field, `field`; `x = y` of varbits is
`assign_VL` in a control and `set` in a parser; `==` names the two fields. A copy
carries the value's width, and `==` compares width and bits (P4_16 spec, "Operations
on variable-size bit types")."""

import json

import pytest
from one_action import forward, ingress_action, one_state_parser

from p4aqm.switch._dataplane import Dataplane


def field(h: str, f: str) -> dict:
    return {"type": "field", "value": [h, f]}


def hexstr(v: int) -> dict:
    return {"type": "hexstr", "value": f"0x{v:02x}"}


def extract_vl(header: str, length_field: str) -> dict:
    length = param({"op": "*", "left": field("l", length_field), "right": hexstr(8)})
    return {"op": "extract_VL", "parameters": [{"type": "regular", "value": header}, length]}


def param(operation: dict) -> dict:
    """A primitive parameter holding an operation: wrapped twice."""
    return {"type": "expression", "value": {"type": "expression", "value": operation}}


def assign_vl(dst: dict, src: dict) -> dict:
    return {"op": "assign_VL", "parameters": [dst, src]}


# l.flags = (a.v == b.v) ? 1 : 0
FLAG_EQUAL = {
    "op": "assign",
    "parameters": [
        field("l", "flags"),
        param(
            {
                "op": "?",
                "left": hexstr(1),
                "right": hexstr(0),
                "cond": {
                    "type": "expression",
                    "value": {"op": "==", "left": field("a", "v"), "right": field("b", "v")},
                },
            }
        ),
    ],
}


def program(primitives: list[dict]) -> dict:
    """l(len_a, len_b, flags), then a and b, each a varbit of at most 3 bytes whose
    length l gives; the parser saves a.v in the varbit variable `saved` (p4c's `set`)."""
    metadata = {"metadata": True}
    return {
        "header_types": [
            {"name": "standard_metadata", "fields": [["egress_spec", 9, False]]},
            {
                "name": "l_t",
                "fields": [["len_a", 8, False], ["len_b", 8, False], ["flags", 8, False]],
            },
            {"name": "v_t", "fields": [["v", "*", False]], "max_length": 3},
            {"name": "$varbit24", "fields": [["field", "*", False]], "max_length": 3},
            {"name": "$varbit8", "fields": [["field", "*", False]], "max_length": 1},
        ],
        "headers": [
            {"name": "standard_metadata", "id": 0, "header_type": "standard_metadata", **metadata},
            {"name": "l", "id": 1, "header_type": "l_t", "metadata": False},
            {"name": "a", "id": 2, "header_type": "v_t", "metadata": False},
            {"name": "b", "id": 3, "header_type": "v_t", "metadata": False},
            {"name": "saved", "id": 4, "header_type": "$varbit24", **metadata},
            {"name": "small", "id": 5, "header_type": "$varbit8", **metadata},
        ],
        "parsers": one_state_parser(
            [
                {"op": "extract", "parameters": [{"type": "regular", "value": "l"}]},
                extract_vl("a", "len_a"),
                {"op": "set", "parameters": [field("saved", "field"), field("a", "v")]},
                extract_vl("b", "len_b"),
            ]
        ),
        "deparsers": [{"name": "deparser", "order": ["l", "a", "b"]}],
        **ingress_action(primitives),
    }


def run(primitives: list[dict], packet: str) -> str:
    return forward(program(primitives), bytes.fromhex(packet)).hex()


@pytest.mark.parametrize(
    ("packet", "expected"),
    [
        ("02 02 00 AABB AABB", "020201 aabb aabb"),
        # 0x00 and 0x0000: the same number, but widths 8 and 16, so not equal
        ("01 02 00 00 0000", "010200 00 0000"),
        ("00 00 00", "000001"),  # two empty varbits are equal
    ],
)
def test_equality_compares_width_and_bits(packet: str, expected: str) -> None:
    assert run([FLAG_EQUAL], packet) == expected.replace(" ", "")


def test_copies_carry_the_width() -> None:
    # b.v = saved (the parser's copy of a.v): b shrinks from 3 bytes to 1; then a.v =
    # an empty variable never written.
    copies = [
        assign_vl(field("b", "v"), field("saved", "field")),
        assign_vl(field("a", "v"), field("small", "field")),
    ]
    assert run(copies, "01 03 00 11 223344") == "010300" + "11"


@pytest.mark.parametrize(
    ("primitive", "message"),
    [
        (assign_vl(field("small", "field"), field("a", "v")), "at most 8 bits cannot hold"),
        (assign_vl(field("l", "flags"), field("a", "v")), "expected a varbit field"),
        (
            {"op": "assign", "parameters": [field("a", "v"), field("b", "v")]},
            "copied with assign_VL and compared with == or !=",
        ),
        (
            {
                "op": "assign",
                "parameters": [
                    field("l", "flags"),
                    param({"op": "==", "left": field("a", "v"), "right": hexstr(0)}),
                ],
            },
            "'==' compares operands of different types",
        ),
    ],
)
def test_other_uses_are_refused_by_name(primitive: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Dataplane().load_pipeline(json.dumps(program([primitive])).encode())
