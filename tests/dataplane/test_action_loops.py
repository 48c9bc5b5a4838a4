"""Loops inside an action, as the compiler emits P4's `for` (backward `_jump`s): two
nested loops over bit<8> counters run to their end, and an action that never stops
ends after the switch's bound on steps, the packet still forwarded."""

from one_action import (
    STANDARD_METADATA,
    STANDARD_METADATA_TYPE,
    forward,
    ingress_action,
    one_state_parser,
)


def field(f: str) -> dict:
    return {"type": "field", "value": ["h", f]}


def hexstr(v: int) -> dict:
    return {"type": "hexstr", "value": hex(v)}


def expr(op: str, left: dict | None, right: dict) -> dict:
    return {"type": "expression", "value": {"op": op, "left": left, "right": right}}


def param(e: dict) -> dict:
    """A primitive parameter holding an expression: wrapped once more."""
    return {"type": "expression", "value": e}


def assign(f: str, value: dict) -> dict:
    return {"op": "assign", "parameters": [field(f), param(value)]}


def jump(to: int) -> dict:
    return {"op": "_jump", "parameters": [hexstr(to)]}


def jump_unless(cond: dict, to: int) -> dict:
    return {"op": "_jump_if_zero", "parameters": [param(expr("b2d", None, cond)), hexstr(to)]}


def add(f: str, v: int, mask: int) -> dict:
    return assign(f, expr("&", expr("+", field(f), hexstr(v)), hexstr(mask)))


def program(primitives: list[dict]) -> dict:
    """h(n 8, i 8, j 8, count 32); the action's primitives start at offset 1."""
    h_t = {
        "name": "h_t",
        "fields": [["n", 8, False], ["i", 8, False], ["j", 8, False], ["count", 32, False]],
    }
    return {
        "header_types": [STANDARD_METADATA_TYPE, h_t],
        "headers": [
            STANDARD_METADATA,
            {"name": "h", "id": 1, "header_type": "h_t", "metadata": False},
        ],
        "parsers": one_state_parser(
            [{"op": "extract", "parameters": [{"type": "regular", "value": "h"}]}]
        ),
        "deparsers": [{"name": "deparser", "order": ["h"]}],
        **ingress_action(primitives),
    }


def nested_count() -> list[dict]:
    """for (i = 0; i < n; i++) for (j = 0; j < n; j++) count++; at offsets 1 to 9."""
    return [
        assign("i", hexstr(0)),  # 1
        jump_unless(expr("<", field("i"), field("n")), 10),  # 2: the outer test
        assign("j", hexstr(0)),  # 3
        jump_unless(expr("<", field("j"), field("n")), 8),  # 4: the inner test
        add("count", 1, 0xFFFFFFFF),  # 5
        add("j", 1, 0xFF),  # 6
        jump(4),  # 7
        add("i", 1, 0xFF),  # 8
        jump(2),  # 9
    ]


def test_nested_loops_over_bit8_counters_run_to_the_end() -> None:
    out = forward(program(nested_count()), bytes([255, 0, 0, 0, 0, 0, 0]))
    assert out[0] == 255 and out[1] == 255
    assert int.from_bytes(out[3:7], "big") == 255 * 255


def test_an_endless_action_ends_and_the_packet_goes_on() -> None:
    prims = [add("count", 1, 0xFFFFFFFF), jump(1)]
    out = forward(program(prims), bytes([1, 2, 3, 0, 0, 0, 0]))
    count = int.from_bytes(out[3:7], "big")
    # Every second step adds one; the bound (2^22 steps) stops it.
    assert count == (1 << 22) // 2
