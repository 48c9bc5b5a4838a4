"""Whole header stacks copied by p4c's `assign_header_stack` primitive (JSON_format.md,
core primitives): every element with its validity, and the next index; stacks of
different types are refused at load."""

import json
from typing import Any

import pytest
from one_action import forward, ingress_action

from p4aqm.switch._dataplane import Dataplane


def stack(name: str) -> dict:
    return {"type": "header_stack", "value": name}


def program(primitives: list[dict], s2_size: int = 2) -> dict[str, Any]:
    """The parser extracts s1's elements while their byte is not 0 (at most 2); the
    deparser emits only s2, so what leaves is what the primitives put there."""
    s2 = [f"s2[{i}]" for i in range(s2_size)]
    names = ["s1[0]", "s1[1]", *s2]
    return {
        "header_types": [
            {"name": "standard_metadata", "id": 0, "fields": [["egress_spec", 9, False]]},
            {"name": "h_t", "id": 1, "fields": [["v", 8, False]]},
        ],
        "headers": [
            {
                "name": "standard_metadata",
                "id": 0,
                "header_type": "standard_metadata",
                "metadata": True,
            },
            *[
                {"name": n, "id": i + 1, "header_type": "h_t", "metadata": False}
                for i, n in enumerate(names)
            ],
        ],
        "header_stacks": [
            {"name": "s1", "id": 0, "header_type": "h_t", "size": 2, "header_ids": [1, 2]},
            {
                "name": "s2",
                "id": 1,
                "header_type": "h_t",
                "size": s2_size,
                "header_ids": list(range(3, 3 + s2_size)),
            },
        ],
        "parsers": [
            {
                "name": "parser",
                "init_state": "start",
                "parse_states": [
                    {
                        "name": "start",
                        "parser_ops": [
                            # An extract into the stack's next element.
                            {"op": "extract", "parameters": [{"type": "stack", "value": "s1"}]}
                        ],
                        "transition_key": [{"type": "stack_field", "value": ["s1", "v"]}],
                        "transitions": [
                            {"type": "hexstr", "value": "0x00", "mask": None, "next_state": None},
                            {"type": "default", "value": None, "mask": None, "next_state": "start"},
                        ],
                    }
                ],
            }
        ],
        "deparsers": [{"name": "deparser", "order": s2}],
        **ingress_action(primitives),
    }


COPY = {"op": "assign_header_stack", "parameters": [stack("s2"), stack("s1")]}
ADD_S2_1 = {"op": "add_header", "parameters": [{"type": "header", "value": "s2[1]"}]}
LAST_INDEX = {"op": "last_stack_index", "left": None, "right": stack("s2")}
LAST_INDEX_INTO_S2_1 = {
    "op": "assign",
    "parameters": [
        {"type": "field", "value": ["s2[1]", "v"]},
        {"type": "expression", "value": {"type": "expression", "value": LAST_INDEX}},
    ],
}


def run(primitives: list[dict], packet: str) -> str:
    return forward(program(primitives), bytes.fromhex(packet)).hex(" ").upper()


@pytest.mark.parametrize(
    ("primitives", "packet", "expected"),
    [
        # Nothing copied: s2 is invalid, only the payload leaves.
        ([], "AA 00 FF", "FF"),
        # Both elements valid in s1: both copied.
        ([COPY], "AA 00 FF", "AA 00 FF"),
        # Only s1[0] valid (its byte 0 ends the parse): s2[1] stays invalid.
        ([COPY], "00 FF", "00 FF"),
        # The validity is copied too: s2[1] was made valid, then s1's invalid [1] wins.
        ([ADD_S2_1, COPY], "00 FF", "00 FF"),
        # The next index is copied: after one element s2's lastIndex is 0, written
        # into s2[1] (it would be 0xFF, -1 wrapped, had the index stayed 0).
        ([COPY, ADD_S2_1, LAST_INDEX_INTO_S2_1], "00 FF", "00 00 FF"),
    ],
)
def test_assign_header_stack_copies_elements_validity_and_next_index(
    primitives: list[dict], packet: str, expected: str
) -> None:
    assert run(primitives, packet) == expected


def test_assign_header_stack_of_different_sizes_is_rejected() -> None:
    prog = program([COPY], s2_size=3)
    with pytest.raises(ValueError, match="header stacks of different types"):
        Dataplane().load_pipeline(json.dumps(prog).encode())


def test_assign_header_stack_needs_header_stack_parameters() -> None:
    bad = {
        "op": "assign_header_stack",
        "parameters": [stack("s2"), {"type": "header", "value": "s1[0]"}],
    }
    with pytest.raises(ValueError, match="parameter 1 must be a header_stack"):
        Dataplane().load_pipeline(json.dumps(program([bad])).encode())
