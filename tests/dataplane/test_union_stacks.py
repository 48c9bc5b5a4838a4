"""Header union stacks in hand-written BMv2 JSON of the shape p4c gives them
(JSON_format.md: `header_union_stacks`, extracts of type `union_stack`,
`union_stack_field` keys, `push`/`pop` and `last_stack_index` of a
`header_union_stack`), and what the loader rejects."""

import copy
import json
from typing import Any

import pytest

from p4aqm.switch._dataplane import Dataplane


def field(h: str, f: str) -> dict:
    return {"type": "field", "value": [h, f]}


def hexstr(v: str) -> dict:
    return {"type": "hexstr", "value": v}


def stack(name: str = "opts") -> dict:
    return {"type": "header_union_stack", "value": name}


def extract(member: str) -> dict:
    return {"op": "extract", "parameters": [{"type": "union_stack", "value": ["opts", member]}]}


def expression(value: dict) -> dict:
    return {"type": "expression", "value": value}


def set_op(dst: dict, src: dict) -> dict:
    return {"op": "set", "parameters": [dst, src]}


# tag(8, 8); opts: a stack of two unions of a(kind 8, x 8) | b(kind 8, y 16).
ELEMENT_HEADERS = [f"opts[{i}].{m}" for i in range(2) for m in ("a", "b")]
LAST_INDEX = expression(expression({"op": "last_stack_index", "left": None, "right": stack()}))


def program(primitives: list[dict]) -> dict[str, Any]:
    """The parser extracts tag, then options by their kind byte (1: a, 2: b) until
    one whose a.x is 0xFF, recording the last index in tag.last; the ingress
    action is `primitives` plus egress_spec = 1."""
    by_kind = {"type": "lookahead", "value": [0, 8]}
    dispatch = [
        {"type": "hexstr", "value": "0x01", "mask": None, "next_state": "parse_a"},
        {"type": "hexstr", "value": "0x02", "mask": None, "next_state": "parse_b"},
        {"type": "default", "value": None, "mask": None, "next_state": None},
    ]
    return {
        "header_types": [
            {"name": "standard_metadata", "id": 0, "fields": [["egress_spec", 9, False]]},
            {"name": "tag_t", "id": 1, "fields": [["n", 8, False], ["last", 8, False]]},
            {"name": "a_t", "id": 2, "fields": [["kind", 8, False], ["x", 8, False]]},
            {"name": "b_t", "id": 3, "fields": [["kind", 8, False], ["y", 16, False]]},
        ],
        "headers": [
            {
                "name": "standard_metadata",
                "id": 0,
                "header_type": "standard_metadata",
                "metadata": True,
            },
            {"name": "tag", "id": 1, "header_type": "tag_t", "metadata": False},
            *[
                {"name": n, "id": i + 2, "header_type": f"{n[-1]}_t", "metadata": False}
                for i, n in enumerate(ELEMENT_HEADERS)
            ],
        ],
        "header_union_types": [{"name": "opt_t", "id": 0, "headers": [["a", "a_t"], ["b", "b_t"]]}],
        "header_unions": [
            {"name": "opts[0]", "id": 0, "union_type": "opt_t", "header_ids": [2, 3]},
            {"name": "opts[1]", "id": 1, "union_type": "opt_t", "header_ids": [4, 5]},
        ],
        "header_union_stacks": [
            {"name": "opts", "id": 0, "union_type": "opt_t", "size": 2, "header_union_ids": [0, 1]}
        ],
        "parsers": [
            {
                "name": "parser",
                "id": 0,
                "init_state": "start",
                "parse_states": [
                    {
                        "name": "start",
                        "id": 0,
                        "parser_ops": [
                            {"op": "extract", "parameters": [{"type": "regular", "value": "tag"}]}
                        ],
                        "transition_key": [by_kind],
                        "transitions": dispatch,
                    },
                    {
                        "name": "parse_a",
                        "id": 1,
                        "parser_ops": [extract("a"), set_op(field("tag", "last"), LAST_INDEX)],
                        "transition_key": [
                            {"type": "union_stack_field", "value": ["opts", "a", "x"]}
                        ],
                        "transitions": [
                            {"type": "hexstr", "value": "0xff", "mask": None, "next_state": None},
                            {"type": "default", "value": None, "mask": None, "next_state": "next"},
                        ],
                    },
                    {
                        "name": "parse_b",
                        "id": 2,
                        "parser_ops": [extract("b"), set_op(field("tag", "last"), LAST_INDEX)],
                        "transition_key": [],
                        "transitions": [
                            {"type": "default", "value": None, "mask": None, "next_state": "next"}
                        ],
                    },
                    {
                        "name": "next",
                        "id": 3,
                        "parser_ops": [],
                        "transition_key": [by_kind],
                        "transitions": dispatch,
                    },
                ],
            }
        ],
        "deparsers": [{"name": "deparser", "id": 0, "order": ["tag", *ELEMENT_HEADERS]}],
        "actions": [
            {
                "name": "act",
                "id": 0,
                "runtime_data": [],
                "primitives": [
                    {
                        "op": "assign",
                        "parameters": [field("standard_metadata", "egress_spec"), hexstr("0x0001")],
                    },
                    *primitives,
                ],
            }
        ],
        "pipelines": [
            {
                "name": "ingress",
                "id": 0,
                "init_table": "t",
                "tables": [
                    {
                        "name": "t",
                        "id": 0,
                        "action_ids": [0],
                        "actions": ["act"],
                        "next_tables": {"act": None},
                        "default_entry": {"action_id": 0, "action_const": True},
                    }
                ],
            },
            {"name": "egress", "id": 1, "init_table": None},
        ],
    }


def run(prog: dict, packet: str) -> str:
    d = Dataplane()
    d.add_memory_port(0)
    d.add_memory_port(1)
    d.load_pipeline(json.dumps(prog).encode())
    d.inject(0, bytes.fromhex(packet))
    [(port, out)] = d.take_output()
    assert port == 1
    return out.hex()


def compact(s: str) -> str:
    return s.replace(" ", "").lower()


@pytest.mark.parametrize(
    ("packet", "expected"),
    [
        # a then b; tag.last is lastIndex after the last extract.
        ("05 00 01 10 02 1234 FE", "05 01 01 10 02 1234 FE"),
        # union_stack_field: a.x == 0xFF of the last element ends parsing.
        ("05 00 01 FF 02 1234", "05 00 01 FF 02 1234"),
        # A third option overflows the two-element stack: parsing stops there.
        ("05 00 01 01 01 02 01 03", "05 01 01 01 01 02 01 03"),
    ],
)
def test_parse_into_a_union_stack_and_deparse(packet: str, expected: str) -> None:
    assert run(program([]), packet) == compact(expected)


def push_or_pop(op: str, count: str) -> dict:
    return {"op": op, "parameters": [stack(), hexstr(count)]}


@pytest.mark.parametrize(
    ("primitives", "packet", "expected"),
    [
        # push: element 0 becomes invalid, element 0's union moves to 1, 1's is lost.
        ([push_or_pop("push", "0x01")], "05 00 01 10 02 1234 FE", "05 01 01 10 FE"),
        # pop: b moves to element 0, element 1 becomes invalid.
        ([push_or_pop("pop", "0x01")], "05 00 01 10 02 1234 FE", "05 01 02 1234 FE"),
        # A count past the size empties the stack.
        ([push_or_pop("pop", "0x05")], "05 00 01 10 02 1234 FE", "05 01 FE"),
        # assign_union_stack onto itself leaves the stack as it is.
        (
            [{"op": "assign_union_stack", "parameters": [stack(), stack()]}],
            "05 00 01 10 02 1234 FE",
            "05 01 01 10 02 1234 FE",
        ),
        # Writing a member of an element by constant index, as p4c names it.
        (
            [{"op": "assign", "parameters": [field("opts[1].b", "y"), hexstr("0xbeef")]}],
            "05 00 01 10 02 1234 FE",
            "05 01 01 10 02 BEEF FE",
        ),
    ],
)
def test_union_stack_primitives(primitives: list[dict], packet: str, expected: str) -> None:
    assert run(program(primitives), packet) == compact(expected)


def test_valid_union_of_an_element() -> None:
    cond = expression(
        {"op": "valid_union", "left": None, "right": {"type": "header_union", "value": "opts[1]"}}
    )
    value = {"op": "?", "left": hexstr("0xee"), "right": hexstr("0xdd"), "cond": cond}
    prim = {"op": "assign", "parameters": [field("tag", "n"), expression(expression(value))]}
    assert run(program([prim]), "05 00 01 10 FE") == compact("DD 00 01 10 FE")
    assert run(program([prim]), "05 00 01 10 01 20 FE") == compact("EE 01 01 10 01 20 FE")


def changed(path: list[Any], value: Any) -> dict:
    prog = copy.deepcopy(program([]))
    target = prog
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return prog


STATES = ["parsers", 0, "parse_states"]


@pytest.mark.parametrize(
    ("prog", "message"),
    [
        (
            changed(["header_union_stacks", 0, "union_type"], "nope_t"),
            "header_union_stack 'opts': unknown union_type 'nope_t'",
        ),
        (
            changed(["header_union_stacks", 0, "header_union_ids"], [0, 7]),
            "header_union_stack 'opts': unknown header union id 7",
        ),
        (
            changed([*STATES, 1, "parser_ops", 0], extract("c")),
            "union stack 'opts' has no member 'c'",
        ),
        (
            changed(
                [*STATES, 1, "parser_ops", 0],
                {"op": "extract", "parameters": [{"type": "union_stack", "value": "opts"}]},
            ),
            r"a union_stack extract names \[union stack, member\]",
        ),
        (
            changed(
                [*STATES, 1, "transition_key", 0],
                {"type": "union_stack_field", "value": ["opts", "a", "z"]},
            ),
            "union stack member 'opts\\[0\\].a' has no field 'z'",
        ),
        (
            changed(
                [*STATES, 1, "parser_ops", 1],
                set_op(
                    field("tag", "last"),
                    expression(
                        expression(
                            {
                                "op": "+",
                                "left": {"type": "union_stack_field", "value": ["opts", "a", "x"]},
                                "right": hexstr("0x01"),
                            }
                        )
                    ),
                ),
            ),
            "a union_stack_field can only be a parse state's transition_key entry",
        ),
        # A member with a varbit field is extracted with its length (extract_VL), and
        # only such a member.
        (
            changed(
                ["header_types", 3],
                {
                    "name": "b_t",
                    "id": 3,
                    "fields": [["kind", 8, False], ["y", 16, False], ["data", "*"]],
                    "max_length": 7,
                },
            ),
            "union stack member 'opts\\[0\\].b' has a varbit field; extract it with extract_VL",
        ),
        (
            changed(
                [*STATES, 1, "parser_ops", 0],
                {
                    "op": "extract_VL",
                    "parameters": [
                        {"type": "union_stack", "value": ["opts", "a"]},
                        expression(hexstr("0x08")),
                    ],
                },
            ),
            "union stack member 'opts\\[0\\].a' has no varbit field",
        ),
    ],
)
def test_bad_union_stacks_are_rejected(prog: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Dataplane().load_pipeline(json.dumps(prog).encode())


@pytest.mark.parametrize(
    ("primitive", "message"),
    [
        (
            {
                "op": "push",
                "parameters": [{"type": "header_union", "value": "opts[0]"}, hexstr("0x01")],
            },
            "expected a header_stack or header_union_stack",
        ),
        (
            {
                "op": "assign_union_stack",
                "parameters": [stack(), {"type": "header_union", "value": "opts[0]"}],
            },
            "expected a header_union_stack, got type 'header_union'",
        ),
        (
            push_or_pop("pop", "0x01") | {"parameters": [stack("nope"), hexstr("0x01")]},
            "unknown header union stack 'nope'",
        ),
    ],
)
def test_bad_union_stack_primitives_are_rejected(primitive: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Dataplane().load_pipeline(json.dumps(program([primitive])).encode())
