"""Programs p4c refuses, refused here too with the same kind of error and a position
(issue #38): BMv2 back-end restrictions, malformed const entries, front-end errors of
p4c's error corpus (testdata/p4_16_errors).  `@@` marks where the error must point."""

import re

import pytest
from compiler_helpers import CompileText
from test_bad_inputs import INGRESS, MARK, TABLE, ingress, parser


def table(props: str) -> str:
    return ingress(
        "        t.apply();",
        TABLE + "    action nop() { }\n    table @@t { " + props + " }\n",
    )


def entries(key: str, rows: str) -> str:
    """A table `t` keyed on m.x by `key`, whose const entries are `rows`."""
    return ingress(
        "        t.apply();",
        TABLE + f"    table t {{ key = {{ m.x: {key}; }} actions = {{ set; }}"
        f" const entries = {{ {rows} }} }}\n",
    )


def function(decl: str, call: str) -> str:
    return ingress(f"        {call}").replace(INGRESS, decl + "\n" + INGRESS, 1)


CASES: dict[str, tuple[str, str]] = {
    # ---- BMv2 back end (p4c's backends/bmv2/common/header.cpp and control.cpp) ----
    "header_not_whole_bytes": (
        ingress("").replace("header h_t {", "header @@h_t {").replace("bit<16> b;", "bit<15> b;"),
        "header h_t: its fields total 23 bits; BMv2 only supports headers whose fields total"
        " a multiple of 8 bits",
    ),
    "two_lpm_keys": (
        ingress(
            "        t.apply();",
            TABLE + "    table t { key = { m.x: lpm; @@hdr.h.a: lpm; } actions = { set; } }\n",
        ),
        "multiple LPM keys in table 't'",
    ),
    "direct_meter_never_read": (
        ingress(
            "        t.apply();",
            "    direct_meter<bit<8>>(MeterType.packets) dm;\n    action a() { }\n"
            "    table @@t { key = { m.x: exact; } actions = { a; } meters = dm; }\n",
        ),
        "table 't' with direct meter 'I.dm' must have at least one action with a read method call",
    ),
    "direct_meter_not_attached": (
        ingress(
            "        t.apply();",
            "    direct_meter<bit<8>>(MeterType.packets) @@dm;\n    action a() { dm.read(m.x); }\n"
            "    table t { key = { m.x: exact; } actions = { a; } }\n",
        ),
        "I.dm: direct meter is not associated with any table via 'meters' table property",
    ),
    "size_not_an_integer": (
        ingress(
            "        t.apply();",
            TABLE + "    table t { key = { m.x: exact; } actions = { set; } size = @@true; }\n",
        ),
        "a table size must be a constant integer",
    ),
    # ---- const entries ----
    "entry_key_count": (
        ingress(
            "        t.apply();",
            TABLE + "    table t { key = { m.x: exact; hdr.h.a: exact; } actions = { set; }"
            " const entries = { @@1 : set(1); } }\n",
        ),
        "expected a tuple of 2 keysets",
    ),
    "entry_key_type": (entries("exact", "@@true : set(1);"), "expected a value of type bit<8>"),
    "entry_mask_on_exact": (entries("exact", "@@1 &&& 3 : set(1);"), "an exact key needs"),
    "entry_range_on_exact": (
        entries("exact", "@@1 .. 3 : set(1);"),
        "a key matched by 'exact' cannot take a range",
    ),
    "entry_range_on_ternary": (
        entries("ternary", "@@1 .. 3 : set(1);"),
        "a key matched by 'ternary' cannot take a range",
    ),
    "entry_range_on_optional": (
        entries("optional", "@@1 .. 3 : set(1);"),
        "a key matched by 'optional' cannot take a range",
    ),
    "entry_mask_on_range": (
        entries("range", "@@1 &&& 3 : set(1);"),
        "a key matched by 'range' cannot take a mask",
    ),
    "entry_lpm_mask_not_prefix": (
        entries("lpm", "@@1 &&& 0x0f : set(1);"),
        "an lpm mask must be a prefix",
    ),
    "entry_action_not_listed": (
        entries("exact", "1 : @@NoAction();"),
        "an entry's action must be one of the table's actions",
    ),
    "entry_action_arguments": (
        entries("exact", "1 : @@set(1, 2);"),
        "action 'set' expects 1 arguments here, not 2",
    ),
    "entry_priority_not_an_integer": (
        entries("ternary", "priority = @@true : 1 : set(1);"),
        "a priority must be a constant integer",
    ),
    # ---- front end (p4c's ValidateParsedProgram, constant folding, type checking) ----
    "table_without_actions": (
        table("key = { m.x: exact; }"),
        "table 't' does not have an 'actions' property",
    ),
    "table_key_twice": (
        ingress(
            "        t.apply();",
            "    table t { key = { m.x: exact; } @@key = { m.x: exact; }\n"
            "        actions = { NoAction; } }\n",
        ),
        "table property 'key' is declared twice",
    ),
    "enum_member_twice": (
        function("enum Z { A, @@A }", ""),
        "'A' is already declared",
    ),
    "variable_named_dont_care": (
        ingress("        bit<8> @@_ = 1;"),
        "'_' is an illegal variable name",
    ),
    "division_by_zero": (ingress("        m.x = @@m.x / 0;"), "division by zero"),
    "modulo_by_zero": (ingress("        m.x = @@m.x % 8w0;"), "modulo by zero"),
    "exit_in_function": (
        function("void f() { @@exit; }", "f();"),
        "exit is not allowed in a function",
    ),
    "duplicate_state": (
        parser("    state start { transition accept; }\n    state @@start { transition accept; }"),
        "'start' is already declared",
    ),
    "assign_to_in_parameter": (
        ingress("        a(1);", "    action a(in bit<8> v) { @@v = 2; }\n"),
        "cannot write to 'v', an 'in' parameter",
    ),
    "duplicate_local": (
        ingress("        bit<8> a = 1; bit<8> @@a = 2;"),
        "'a' is already declared",
    ),
}


def _located(text: str) -> tuple[str, int, int]:
    index = text.index(MARK)
    before = text[:index]
    return text.replace(MARK, "", 1), before.count("\n") + 1, index - before.rfind("\n")


@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_as_p4c_refuses(compile_text: CompileText, name: str) -> None:
    program, message = CASES[name]
    text, line, col = _located(program)
    result = compile_text(text)
    assert result.status == 1, result.err
    assert "Traceback" not in result.err
    first = result.err.split("\n")[0]
    m = re.match(r"^.*prog\.p4:(\d+):(\d+): error: (.+)$", first)
    assert m, first
    assert (int(m[1]), int(m[2])) == (line, col), first
    assert message in m[3], first
    assert not result.json_path.exists()


def test_metadata_not_whole_bytes_compiles(compile_text: CompileText) -> None:
    # p4c pads metadata structs (the test programs' meta_t is 9 bits) and header types
    # that no instance uses are not laid out.
    program = ingress("").replace(INGRESS, "header unused_t { bit<3> a; }\n" + INGRESS, 1)
    result = compile_text(program)
    assert result.status == 0, result.err


def test_division_by_a_non_zero_constant_compiles(compile_text: CompileText) -> None:
    # Only a divisor known to be zero is refused.
    result = compile_text(ingress("        m.x = 8w6 / 8w2; m.x = m.x % 8w4;"))
    assert result.status == 0, result.err
