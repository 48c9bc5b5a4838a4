"""Header unions in hand-written BMv2 JSON: what our compiler does not emit
(`assign_union`, two extracts into one union) and what the loader rejects."""

import json

import pytest
from one_action import forward, ingress_action

from p4aqm.switch._dataplane import Dataplane


def field(h: str, f: str) -> dict:
    return {"type": "field", "value": [h, f]}


def header(name: str) -> dict:
    return {"type": "header", "value": name}


def union(name: str) -> dict:
    return {"type": "header_union", "value": name}


def extract(h: str) -> dict:
    return {"op": "extract", "parameters": [{"type": "regular", "value": h}]}


def program(primitives: list[dict], unions: list[dict] | None = None) -> dict:
    """tag(8), unions u and v of a(8) | b(16). kind 1 extracts u.a, 2 u.b,
    3 u.a then u.b; the ingress action is `primitives` plus egress_spec = 1."""
    names = ["tag", "u.a", "u.b", "v.a", "v.b"]
    types = ["tag_t", "a_t", "b_t", "a_t", "b_t"]
    states = [("parse_a", ["u.a"]), ("parse_b", ["u.b"]), ("parse_ab", ["u.a", "u.b"])]
    return {
        "header_types": [
            {"name": "standard_metadata", "fields": [["egress_spec", 9, False]]},
            {"name": "tag_t", "fields": [["kind", 8, False]]},
            {"name": "a_t", "fields": [["x", 8, False]]},
            {"name": "b_t", "fields": [["y", 16, False]]},
        ],
        "headers": [
            {
                "name": "standard_metadata",
                "id": 0,
                "header_type": "standard_metadata",
                "metadata": True,
            },
            *[
                {"name": n, "id": i + 1, "header_type": t, "metadata": False}
                for i, (n, t) in enumerate(zip(names, types, strict=True))
            ],
        ],
        "header_unions": unions
        if unions is not None
        else [
            {"name": "u", "id": 0, "union_type": "ab_t", "header_ids": [2, 3]},
            {"name": "v", "id": 1, "union_type": "ab_t", "header_ids": [4, 5]},
        ],
        "parsers": [
            {
                "name": "parser",
                "init_state": "start",
                "parse_states": [
                    {
                        "name": "start",
                        "parser_ops": [extract("tag")],
                        "transition_key": [field("tag", "kind")],
                        "transitions": [
                            {"value": f"0x0{i + 1}", "next_state": name}
                            for i, (name, _) in enumerate(states)
                        ]
                        + [{"type": "default", "next_state": None}],
                    },
                    *[
                        {
                            "name": name,
                            "parser_ops": [extract(h) for h in hs],
                            "transitions": [{"type": "default", "next_state": None}],
                        }
                        for name, hs in states
                    ],
                ],
            }
        ],
        "deparsers": [{"name": "deparser", "order": names}],
        **ingress_action(primitives),
    }


def run(prog: dict, packet: bytes) -> bytes:
    return forward(prog, packet)


def test_second_extract_into_a_union_invalidates_the_first() -> None:
    assert run(program([]), bytes.fromhex("03 10 1234 FF")) == bytes.fromhex("03 1234 FF")


@pytest.mark.parametrize(
    ("packet", "expected"),
    [
        ("01 10 FF", "01 10 10 FF"),  # v.a copied from u.a
        ("02 1234 FF", "02 1234 1234 FF"),  # v.b copied from u.b
        ("04 FF", "04 FF"),  # u invalid: v becomes invalid
    ],
)
def test_assign_union_copies_members_and_validity(packet: str, expected: str) -> None:
    prog = program(
        [
            {"op": "add_header", "parameters": [header("v.b")]},
            {"op": "assign_union", "parameters": [union("v"), union("u")]},
        ]
    )
    assert run(prog, bytes.fromhex(packet)) == bytes.fromhex(expected)


def test_add_header_invalidates_the_other_member() -> None:
    prog = program([{"op": "add_header", "parameters": [header("u.b")]}])
    assert run(prog, bytes.fromhex("01 10 FF")) == bytes.fromhex("01 0000 FF")


@pytest.mark.parametrize(
    ("unions", "message"),
    [
        (
            [{"name": "u", "header_ids": [2, 3]}, {"name": "w", "header_ids": [3]}],
            "header_union 'w': header 'u.b' is in two unions",
        ),
        ([{"name": "u", "header_ids": [2, 9]}], "header_union 'u': unknown header id 9"),
    ],
)
def test_bad_unions_are_rejected(unions: list[dict], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Dataplane().load_pipeline(json.dumps(program([], unions)).encode())


def test_assign_union_of_unknown_union_is_rejected() -> None:
    prog = program([{"op": "assign_union", "parameters": [union("v"), union("nope")]}])
    with pytest.raises(ValueError, match="unknown header union 'nope'"):
        Dataplane().load_pipeline(json.dumps(prog).encode())


def choose(cond: dict) -> dict:
    """tag.kind = cond ? 0xEE : 0xDD, with cond a p4c-style comparison expression."""
    hexstr = {"ee": {"type": "hexstr", "value": "0xee"}, "dd": {"type": "hexstr", "value": "0xdd"}}
    value = {"op": "?", "left": hexstr["ee"], "right": hexstr["dd"], "cond": cond}
    return {
        "op": "assign",
        # A primitive's expression parameter wraps a typed expression (as p4c writes it).
        "parameters": [
            field("tag", "kind"),
            {"type": "expression", "value": {"type": "expression", "value": value}},
        ],
    }


def compare(op: str, left: dict, right: dict) -> dict:
    return {"type": "expression", "value": {"op": op, "left": left, "right": right}}


COPY_U_TO_V = {"op": "assign_union", "parameters": [union("v"), union("u")]}
SET_V_A = {"op": "assign", "parameters": [field("v.a", "x"), {"type": "hexstr", "value": "0x11"}]}


@pytest.mark.parametrize(
    ("primitives", "packet", "expected"),
    [
        # p4c's `u == v` on unions (EQ_UNION): neither has a valid member: equal.
        ([choose(compare("==", union("u"), union("v")))], "04 FF", "EE FF"),
        # u.a valid, v invalid: not equal.
        ([choose(compare("==", union("u"), union("v")))], "01 10 FF", "DD 10 FF"),
        # v copied from u: the same member valid with the same fields: equal.
        ([COPY_U_TO_V, choose(compare("==", union("u"), union("v")))], "01 10 FF", "EE 10 10 FF"),
        # Headers (EQ_HEADER): a field differs, so != holds.
        (
            [COPY_U_TO_V, SET_V_A, choose(compare("!=", header("u.a"), header("v.a")))],
            "01 10 FF",
            "EE 10 11 FF",
        ),
        (
            [COPY_U_TO_V, choose(compare("==", header("u.a"), header("v.a")))],
            "01 10 FF",
            "EE 10 10 FF",
        ),
        # Both invalid headers are equal.
        ([choose(compare("==", header("u.b"), header("v.b")))], "01 10 FF", "EE 10 FF"),
    ],
)
def test_p4c_compares_headers_and_unions_whole(
    primitives: list[dict], packet: str, expected: str
) -> None:
    out = run(program(primitives), bytes.fromhex(packet))
    assert out == bytes.fromhex(expected)
