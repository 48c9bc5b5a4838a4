"""Header stack elements chosen by a run-time index, in the JSON p4c gives them
(JSON_format.md, "The type value object"): `dereference_header_stack` yields a header,
`access_field` one of its fields. `hs[i].f = v` is an `assign` whose destination is
an access_field wrapped twice, as every operation parameter is; `hs[i].setValid()` is
`add_header` of a wrapped dereference. An index outside the stack reads 0 and writes
nothing (P4_16 spec, "Reading uninitialized values and writing fields of invalid
headers")."""

import json
from typing import Any

import pytest
from one_action import forward, ingress_action, one_state_parser

from p4aqm.switch._dataplane import Dataplane


def field(h: str, f: str) -> dict:
    return {"type": "field", "value": [h, f]}


def expression(value: dict) -> dict:
    return {"type": "expression", "value": value}


def param(value: dict) -> dict:
    """A primitive parameter holding an operation: wrapped twice."""
    return expression(expression(value))


# hs[ctl.i], as p4c writes a run-time index.
ELEMENT = {
    "op": "dereference_header_stack",
    "left": {"type": "header_stack", "value": "hs"},
    "right": field("ctl", "i"),
}


def element_field(offset: int) -> dict:
    return {"op": "access_field", "left": expression(ELEMENT), "right": offset}


def access_a(element: dict) -> dict:
    return {"op": "access_field", "left": expression(element), "right": 0}


def assign(dst: dict, src: dict) -> dict:
    return {"op": "assign", "parameters": [dst, src]}


def program(primitives: list[dict], extracted: int = 3) -> dict[str, Any]:
    """ctl(i 8, r 8), then `extracted` elements of hs, a stack of three h_t(a 8, b 8);
    the deparser emits ctl and every valid element."""
    elements = [f"hs[{k}]" for k in range(3)]
    return {
        "header_types": [
            {"name": "standard_metadata", "id": 0, "fields": [["egress_spec", 9, False]]},
            {"name": "ctl_t", "id": 1, "fields": [["i", 8, False], ["r", 8, False]]},
            {"name": "h_t", "id": 2, "fields": [["a", 8, False], ["b", 8, False]]},
        ],
        "headers": [
            {
                "name": "standard_metadata",
                "id": 0,
                "header_type": "standard_metadata",
                "metadata": True,
            },
            {"name": "ctl", "id": 1, "header_type": "ctl_t", "metadata": False},
            *[
                {"name": n, "id": k + 2, "header_type": "h_t", "metadata": False}
                for k, n in enumerate(elements)
            ],
        ],
        "header_stacks": [
            {"name": "hs", "id": 0, "header_type": "h_t", "size": 3, "header_ids": [2, 3, 4]}
        ],
        "parsers": one_state_parser(
            [
                {"op": "extract", "parameters": [{"type": "regular", "value": "ctl"}]},
                *[
                    {"op": "extract", "parameters": [{"type": "stack", "value": "hs"}]}
                    for _ in range(extracted)
                ],
            ]
        ),
        "deparsers": [{"name": "deparser", "order": ["ctl", *elements]}],
        **ingress_action(primitives),
    }


ELEMENTS = bytes([0x10, 0x11, 0x20, 0x21, 0x30, 0x31])


def run(primitives: list[dict], index: int, extracted: int = 3) -> bytes:
    return forward(program(primitives, extracted), bytes([index, 0]) + ELEMENTS[: 2 * extracted])


@pytest.mark.parametrize("index", [0, 1, 2])
def test_a_field_is_written_through_a_run_time_index(index: int) -> None:
    write_b = assign(param(element_field(1)), {"type": "hexstr", "value": "0xee"})
    out = run([write_b], index)
    expected = bytearray(ELEMENTS)
    expected[2 * index + 1] = 0xEE
    assert out == bytes([index, 0]) + bytes(expected)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_a_field_is_read_through_a_run_time_index(index: int) -> None:
    read_a = assign(field("ctl", "r"), param(element_field(0)))
    assert run([read_a], index)[1] == ELEMENTS[2 * index]


def test_a_read_index_can_itself_read_the_stack() -> None:
    """hs[hs[0].a - 0x10].b: the index is any data expression."""
    nested = {
        "op": "dereference_header_stack",
        "left": {"type": "header_stack", "value": "hs"},
        "right": expression(
            {
                "op": "-",
                "left": expression(element_field(0)),
                "right": {"type": "hexstr", "value": "0x0f"},
            }
        ),
    }
    read = assign(
        field("ctl", "r"), param({"op": "access_field", "left": expression(nested), "right": 1})
    )
    # ctl.i = 2 picks hs[2].a = 0x30; 0x30 - 0x0f is past the end, so it reads 0;
    # ctl.i = 0 picks hs[0].a = 0x10, so hs[1].b.
    assert run([read], 0)[1] == 0x21
    assert run([read], 2)[1] == 0


def test_an_index_outside_the_stack_reads_zero_and_writes_nothing() -> None:
    write_b = assign(param(element_field(1)), {"type": "hexstr", "value": "0xee"})
    read_a = assign(field("ctl", "r"), param(element_field(0)))
    valid = assign(
        field("ctl", "i"),
        param(
            {
                "op": "b2d",
                "left": None,
                "right": expression({"op": "valid", "left": None, "right": expression(ELEMENT)}),
            }
        ),
    )
    for index in (3, 200):
        assert run([write_b, read_a, valid], index) == bytes([0, 0]) + ELEMENTS


def test_elements_become_valid_and_invalid_through_a_run_time_index() -> None:
    add = {"op": "add_header", "parameters": [param(ELEMENT)]}
    remove = {"op": "remove_header", "parameters": [param(ELEMENT)]}
    # Two elements extracted: setValid() on hs[2] emits it, zeroed.
    assert run([add], 2, extracted=2) == bytes([2, 0]) + ELEMENTS[:4] + bytes(2)
    # setValid() on a valid element keeps its fields.
    assert run([add], 1, extracted=2) == bytes([1, 0]) + ELEMENTS[:4]
    assert run([remove], 1) == bytes([1, 0]) + ELEMENTS[:2] + ELEMENTS[4:]


def test_is_valid_of_an_element_chosen_at_run_time() -> None:
    valid = {"op": "valid", "left": None, "right": expression(ELEMENT)}
    set_r = assign(
        field("ctl", "r"), param({"op": "b2d", "left": None, "right": expression(valid)})
    )
    assert run([set_r], 1, extracted=2)[1] == 1
    assert run([set_r], 2, extracted=2)[1] == 0


def test_whole_headers_are_copied_and_compared_through_a_run_time_index() -> None:
    first = {"type": "header", "value": "hs[0]"}
    copy = {"op": "assign_header", "parameters": [param(ELEMENT), first]}
    assert run([copy], 2) == bytes([2, 0]) + ELEMENTS[:4] + ELEMENTS[:2]
    equal = {"op": "==", "left": expression(ELEMENT), "right": first}
    set_r = assign(
        field("ctl", "r"), param({"op": "b2d", "left": None, "right": expression(equal)})
    )
    assert run([set_r], 0)[1] == 1
    assert run([set_r], 1)[1] == 0
    assert run([copy, set_r], 1)[1] == 1


@pytest.mark.parametrize(
    ("primitive", "message"),
    [
        (
            assign(param({**element_field(0), "right": 2}), {"type": "hexstr", "value": "0x01"}),
            "access_field offset 2 is out of range (header 'hs[0]' has 2 fields)",
        ),
        (
            # A destination wrapped once, as p4c writes `hs[i] = h`: BMv2 refuses it.
            {"op": "assign_header", "parameters": [expression(ELEMENT), field("ctl", "i")]},
            "Invalid 'type' in expression: ''",
        ),
        (
            assign(field("ctl", "r"), param(ELEMENT)),
            "operator 'dereference_header_stack' yields a header or union, not a value",
        ),
        (
            assign(field("ctl", "r"), param(access_a({**ELEMENT, "left": field("ctl", "i")}))),
            "dereference_header_stack needs a header_stack on its left",
        ),
        (
            assign(field("ctl", "r"), param(access_a({**ELEMENT, "right": None}))),
            "a stack dereference needs an index on its right",
        ),
        (
            assign(
                field("ctl", "r"),
                param({"op": "==", "left": expression(ELEMENT), "right": field("ctl", "i")}),
            ),
            "'==' compares operands of different types",
        ),
        (
            assign(
                param({"op": "+", "left": field("ctl", "i"), "right": field("ctl", "i")}),
                field("ctl", "i"),
            ),
            "an expression written to must be an access_field",
        ),
    ],
)
def test_malformed_dereferences_are_refused_at_load(primitive: dict, message: str) -> None:
    with pytest.raises(ValueError, match="action 'act'") as refused:
        Dataplane().load_pipeline(json.dumps(program([primitive])).encode())
    assert message in str(refused.value)
