"""Varbit fields in hand-written BMv2 JSON: a varbit between unaligned fixed
fields, parser errors on bad lengths, and what the loader rejects."""

import json

import pytest

from p4aqm.switch._dataplane import Dataplane

ERRORS = [
    ["NoError", 0],
    ["PacketTooShort", 1],
    ["HeaderTooShort", 4],
    ["ParserInvalidArgument", 6],
]


def field(h: str, f: str) -> dict:
    return {"type": "field", "value": [h, f]}


def program(size: dict | None = None, **changes: object) -> dict:
    """v: a(4), opts(varbit, at most 3 bytes), b(4); extracted with `size`
    bits (default: 8 * len), after a 1-byte `len` header. Ingress writes
    the parser error into len."""
    # extract_VL's length is of type expression, whose value is the expression
    # (JSON_format.md, parser operations).
    size = size or {
        "type": "expression",
        "value": {
            "type": "expression",
            "value": {
                "op": "*",
                "left": field("l", "len"),
                "right": {"type": "hexstr", "value": "0x08"},
            },
        },
    }
    prog = {
        "header_types": [
            {
                "name": "standard_metadata",
                "fields": [["egress_spec", 9, False], ["parser_error", 32, False]],
            },
            {"name": "l_t", "fields": [["len", 8, False]]},
            {
                "name": "v_t",
                "fields": [["a", 4, False], ["opts", "*", False], ["b", 4, False]],
                "max_length": 4,
            },
        ],
        "headers": [
            {
                "name": "standard_metadata",
                "id": 0,
                "header_type": "standard_metadata",
                "metadata": True,
            },
            {"name": "l", "id": 1, "header_type": "l_t", "metadata": False},
            {"name": "v", "id": 2, "header_type": "v_t", "metadata": False},
        ],
        "errors": ERRORS,
        "parsers": [
            {
                "name": "parser",
                "init_state": "start",
                "parse_states": [
                    {
                        "name": "start",
                        "parser_ops": [
                            {"op": "extract", "parameters": [{"type": "regular", "value": "l"}]},
                            {
                                "op": "extract_VL",
                                "parameters": [{"type": "regular", "value": "v"}, size],
                            },
                        ],
                        "transitions": [{"type": "default", "next_state": None}],
                    }
                ],
            }
        ],
        "deparsers": [{"name": "deparser", "order": ["l", "v"]}],
        "actions": [
            {
                "name": "act",
                "id": 0,
                "primitives": [
                    {
                        "op": "assign",
                        "parameters": [
                            field("standard_metadata", "egress_spec"),
                            {"type": "hexstr", "value": "0x0001"},
                        ],
                    },
                    {
                        "op": "assign",
                        "parameters": [
                            field("l", "len"),
                            field("standard_metadata", "parser_error"),
                        ],
                    },
                ],
            }
        ],
        "pipelines": [
            {
                "name": "ingress",
                "init_table": "t",
                "tables": [
                    {
                        "name": "t",
                        "action_ids": [0],
                        "actions": ["act"],
                        "next_tables": {"act": None},
                        "default_entry": {"action_id": 0, "action_const": True},
                    }
                ],
            },
            {"name": "egress", "init_table": None},
        ],
    }
    prog.update(changes)
    return prog


def run(prog: dict, packet: str) -> str:
    d = Dataplane()
    d.add_memory_port(0)
    d.add_memory_port(1)
    d.load_pipeline(json.dumps(prog).encode())
    d.inject(0, bytes.fromhex(packet))
    [(port, out)] = d.take_output()
    assert port == 1
    return out.hex()


@pytest.mark.parametrize(
    ("packet", "expected"),
    [
        ("02 A123 4B FF", "00 a1234b ff"),  # 2 option bytes between the nibbles
        ("00 AB FF", "00 ab ff"),  # empty varbit: a and b only
        ("03 A1234567 FF", "00 a1234567 ff"),  # the 3-byte maximum
    ],
)
def test_varbit_between_unaligned_fields_round_trips(packet: str, expected: str) -> None:
    assert run(program(), packet) == expected.replace(" ", "")


@pytest.mark.parametrize(
    ("packet", "error"),
    [
        ("03 A1234B", 1),  # PacketTooShort: the header needs 4 bytes, 3 are left
        ("05 A123456789AB", 4),  # HeaderTooShort: 40 bits > the 24-bit maximum
    ],
)
def test_bad_lengths_set_the_parser_error(packet: str, error: int) -> None:
    # The header stays unparsed: it leaves as payload behind l.
    assert run(program(), packet) == f"{error:02x}" + packet.replace(" ", "")[2:].lower()


def test_length_not_whole_bytes_is_an_invalid_argument() -> None:
    size = {"type": "expression", "value": {"type": "hexstr", "value": "0x04"}}
    assert run(program(size), "00 AB") == "06ab"


def _with_v_t(fields: list, **extra: object) -> list:
    types = program()["header_types"]
    types[2] = {"name": "v_t", "fields": fields, **extra}
    return types


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"header_types": _with_v_t([["a", 4], ["opts", "*"], ["b", 4]])},
            "a varbit field needs 'max_length'",
        ),
        (
            {"header_types": _with_v_t([["a", 4], ["opts", "*"], ["b", 4]], max_length=1)},
            "leaves no room for the varbit field",
        ),
        (
            {"header_types": _with_v_t([["o", "*"], ["p", "*"], ["b", 8]], max_length=4)},
            "more than one varbit field",
        ),
    ],
)
def test_bad_varbit_programs_are_rejected(changes: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Dataplane().load_pipeline(json.dumps(program(**changes)).encode())


def test_varbit_field_cannot_be_read_as_a_value() -> None:
    prog = program()
    prog["actions"][0]["primitives"][1]["parameters"][1] = field("v", "opts")
    with pytest.raises(
        ValueError, match="varbit field 'v.opts' can only be extracted, emitted, copied"
    ):
        Dataplane().load_pipeline(json.dumps(prog).encode())


def test_plain_extract_of_a_varbit_header_is_rejected() -> None:
    prog = program()
    ops = prog["parsers"][0]["parse_states"][0]["parser_ops"]
    ops[1] = {"op": "extract", "parameters": [{"type": "regular", "value": "v"}]}
    with pytest.raises(ValueError, match="extract it with extract_VL"):
        Dataplane().load_pipeline(json.dumps(prog).encode())


def test_assign_header_copies_the_varbit_bytes() -> None:
    prog = program()
    prog["headers"].append({"name": "w", "id": 3, "header_type": "v_t", "metadata": False})
    prog["deparsers"][0]["order"].append("w")
    prog["actions"][0]["primitives"].append(
        {
            "op": "assign_header",
            "parameters": [{"type": "header", "value": "w"}, {"type": "header", "value": "v"}],
        }
    )
    assert run(prog, "02 A1234B FF") == "00a1234ba1234bff"


def _stack_program(extract_op: dict) -> dict:
    """v in a stack s of one element (and l in a stack t), extracted by `extract_op`."""
    stacks = [{"name": "s", "header_ids": [2]}, {"name": "t", "header_ids": [1]}]
    prog = program(header_stacks=stacks)
    prog["parsers"][0]["parse_states"][0]["parser_ops"][1] = extract_op
    return prog


def test_varbit_stack_element_is_extracted_with_extract_vl() -> None:
    # p4c's form of extract(s.next, bits): extract_VL with a parameter of type stack.
    length = program()["parsers"][0]["parse_states"][0]["parser_ops"][1]["parameters"][1]
    op = {"op": "extract_VL", "parameters": [{"type": "stack", "value": "s"}, length]}
    assert run(_stack_program(op), "02 A123 4B FF") == "00a1234bff"


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (
            {"op": "extract", "parameters": [{"type": "stack", "value": "s"}]},
            "stack 's' holds headers with a varbit field; extract them with extract_VL",
        ),
        (
            {
                "op": "extract_VL",
                "parameters": [
                    {"type": "stack", "value": "t"},
                    {"type": "expression", "value": {"type": "hexstr", "value": "0x08"}},
                ],
            },
            "stack 't' holds headers without a varbit field",
        ),
    ],
)
def test_varbit_stack_extracts_are_checked(op: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Dataplane().load_pipeline(json.dumps(_stack_program(op)).encode())
