"""The bad-input suite: malformed and ill-typed programs.  Each must fail with exit code
1 and `file:line:col: error: message`, the source line and a caret under the column;
never a traceback.  `@@` in a program marks where the error must point (it is removed
before compiling)."""

import re

import pytest
from compiler_helpers import CompileText

MARK = "@@"
HEADER = "#include <core.p4>\n#include <v1model.p4>\n"
TYPES = (
    "header h_t { bit<8> a; bit<16> b; }\n"
    "struct hs { h_t h; h_t[2] st; }\n"
    "struct meta_t { bit<8> x; bool f; }\n"
    "struct pair_t { bit<8> a; bit<8> b; }\n"
)
PARSER = """
parser P(packet_in p, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { p.extract(hdr.h); transition accept; }
}
"""
REST = """
control V(inout hs hdr, inout meta_t m) { apply { } }
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs hdr, inout meta_t m) { apply { } }
control D(packet_out p, in hs hdr) { apply { p.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""
INGRESS = "control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {\n"


def ingress(body: str, locals_: str = "") -> str:
    return (
        HEADER + TYPES + PARSER + INGRESS + locals_ + "    apply {\n" + body + "\n    }\n}\n" + REST
    )


def parser(states: str, locals_: str = "") -> str:
    head = "parser P(packet_in p, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {\n"
    return (
        HEADER + TYPES + head + locals_ + states + "\n}\n" + INGRESS + "    apply { }\n}\n" + REST
    )


def top(decls: str) -> str:
    return HEADER + decls + "\n"


TABLE = "    action set(bit<8> v) { m.x = v; }\n"

CASES = {
    # ---- lexing and syntax ----
    "unterminated_string": top('const bit<8> X = 1;\n@@"never closed\n'),
    "bad_width_literal": top("const bit<8> X = 8@@w;\n"),
    "missing_brace": top("header h_t { bit<8> a; \n@@"),
    "missing_semicolon_stmt": ingress("        m.x = 1\n    @@}"),
    "keyword_as_field": top("header h_t { bit<8> @@out; }\n"),
    "bad_type_syntax": top("header h_t { bit<@@> a; }\n"),
    "stray_token_top": top("@@+ const bit<8> X = 1;\n"),
    "else_without_if": ingress("        @@else { m.x = 1; }"),
    "break_outside_loop": ingress("        @@break;"),
    "for_missing_paren": ingress("        for (bit<8> i = 0; i < 2; i = i + 1 @@{ }"),
    "for_in_parser": parser(
        "    state start { @@for (bit<8> i = 0; i < 2; i = i + 1) { } transition accept; }"
    ),
    "for_in_over_a_value": ingress("        for (bit<8> v in @@m.x) { }"),
    "static_assert_false": ingress('        @@static_assert(1 == 2, "never");'),
    "static_assert_run_time": ingress("        static_assert(@@m.x == 1);"),
    "unbalanced_paren": ingress("        m.x = (1 + 2@@;"),
    # ---- preprocessor ----
    "unterminated_if": "#include <core.p4>\n@@#ifdef FOO\nconst bit<8> X = 1;\n",
    "else_without_ifdef": "#@@else\n",
    # ---- names and declarations ----
    "undeclared_type": top("header h_t { @@nope_t a; }\n"),
    "duplicate_field": top("header h_t { bit<8> a; bit<8> @@a; }\n"),
    "duplicate_const": top("const bit<8> X = 1;\nconst bit<8> @@X = 2;\n"),
    "undeclared_action": ingress(
        "        t.apply();",
        "    table t { key = { m.x: exact; } actions = { @@nothing; } }\n",
    ),
    "undeclared_table": ingress("        @@t2.apply();"),
    "state_not_declared": parser("    state start { p.extract(hdr.h); transition @@nowhere; }"),
    "no_start_state": parser("    state begin { transition accept; }").replace(
        "parser P(", "parser @@P(", 1
    ),
    "redefine_accept": parser(
        "    state start { transition accept; }\n    state @@accept { transition accept; }"
    ),
    "error_member_unknown": ingress("        if (sm.parser_error == @@error.Bogus) { }"),
    "enum_member_unknown": top("enum E { A, B }\nconst E X = @@E.C;\n"),
    # ---- types ----
    "assign_bool_to_bits": ingress("        m.x = @@true;"),
    "assign_bits_to_bool": ingress("        m.f = @@m.x;"),
    "wrong_width": ingress("        hdr.h.a = @@hdr.h.b;"),
    "literal_too_big": ingress("        m.x = @@8w300;"),
    "signed_unsigned_mix": ingress("        m.x = @@m.x + (int<8>)1;"),
    "compare_different_widths": ingress("        m.f = @@hdr.h.a == hdr.h.b;"),
    "slice_out_of_range": ingress("        m.x = @@hdr.h.a[8:1];"),
    "slice_reversed": ingress("        m.x = (bit<8>)@@hdr.h.a[1:3];"),
    "plus_slice_width_run_time": ingress("        m.x = (bit<8>)hdr.h.b[m.x +: @@m.x];"),
    "plus_slice_too_wide": ingress("        hdr.h.b = (bit<16>)hdr.h.a[m.x +: @@9];"),
    "plus_slice_signed_start": ingress("        m.x = hdr.h.b[@@(int<8>)m.x +: 8];"),
    "plus_slice_nested_assign": ingress("        @@hdr.h.b[m.x +: 8][3:0] = 1;"),
    "not_on_bits": ingress("        m.f = !@@m.x;"),
    "complement_int": ingress("        m.x = @@~1;"),
    "bad_cast": ingress("        m.f = @@(bool)hdr.h.b;"),
    "if_on_bits": ingress("        if (@@hdr.h.a) { }"),
    "field_of_scalar": ingress("        m.x = @@m.x.y;"),
    "no_such_field": ingress("        @@hdr.h.zz = 1;"),
    "index_non_stack": ingress("        m.x = @@hdr.h[0].a;"),
    "stack_index_oob": ingress("        hdr.st[@@5].a = 1;"),
    "stack_index_bool": ingress("        m.x = hdr.st[@@m.f].a;"),
    "stack_runtime_index_emit": ingress("").replace("p.emit(hdr.h);", "p.emit(@@hdr.st[hdr.h.a]);"),
    "two_varbit_fields": top("header h_t { varbit<8> a; @@varbit<8> b; }\n"),
    "extract_size_without_varbit": parser(
        "    state start { @@p.extract(hdr.h, 8); transition accept; }"
    ),
    # A struct of fixed-width fields may be a header field; one with a varbit may not.
    "header_field_struct": top("struct s_t { varbit<8> a; }\nheader h_t { @@s_t inner; }\n"),
    "stack_of_bits": top("struct s_t { @@bit<8>[4] a; }\n"),
    "ternary_unsized": ingress("        m.x = @@m.f ? 1 : 2;"),
    "shift_signed_amount": ingress("        m.x = m.x << @@(int<8>)1;"),
    "struct_init_missing_field": ingress("        pair_t v = @@{ a = 1 };"),
    "struct_constant_not_constant": ingress("", "    const pair_t P = @@{ a = hdr.h.a, b = 1 };\n"),
    "dots_not_last": ingress("        pair_t v = { a = 1, @@..., b = 2 };"),
    "dots_in_arithmetic": ingress("        m.x = @@m.x + ...;"),
    "dots_for_a_type_parameter": ingress(
        "        hash(m.x, HashAlgorithm.crc16, 8w0, @@{ m.x, ... }, 8w10);"
    ),
    "struct_init_extra_field": ingress("        pair_t v = @@{ a = 1, b = 2, c = 3 };"),
    "struct_list_wrong_count": ingress("        pair_t v = @@{ 1 };"),
    # ---- statements and calls ----
    "assign_to_in_param": HEADER
    + TYPES
    + PARSER
    + INGRESS
    + "    apply { }\n}\n"
    + REST.replace(
        "control D(packet_out p, in hs hdr) { apply { p.emit(hdr.h); } }",
        "control D(packet_out p, in hs hdr) { apply { @@hdr.h.a = 1; p.emit(hdr.h); } }",
    ),
    "assign_to_constant": top("const bit<8> X = 1;\n")
    + ingress("        @@X = 2;").replace(HEADER, "", 1),
    "action_wrong_arg_count": ingress("        @@set(1, 2);", TABLE),
    "action_arg_type": ingress("        set(@@true);", TABLE),
    "exit_in_parser": parser("    state start { @@exit; }"),
    "return_value_from_action": ingress("        a();", "    action a() { @@return 1; }\n"),
    "apply_table_in_action": ingress(
        "        a();",
        "    table t { key = { m.x: exact; } actions = { NoAction; } }\n"
        "    action a() { @@t.apply(); }\n",
    ),
    "default_action_not_listed": ingress(
        "        t.apply();",
        TABLE + "    table t { key = { m.x: exact; } actions = { NoAction; }"
        " default_action = @@set(1); }\n",
    ),
    "default_action_no_args": ingress(
        "        t.apply();",
        TABLE
        + "    table t { key = { m.x: exact; } actions = { set; } default_action = @@set; }\n",
    ),
    "bad_match_kind": ingress(
        "        t.apply();",
        "    table t { key = { m.x: @@fuzzy; } actions = { NoAction; } }\n",
    ),
    "table_key_bad_type": ingress(
        "        t.apply();",
        "    table t { key = { @@hdr.h: exact; } actions = { NoAction; } }\n",
    ),
    "entry_not_constant": ingress(
        "        t.apply();",
        TABLE + "    table t { key = { m.x: exact; } actions = { set; }"
        " const entries = { @@m.x : set(1); } }\n",
    ),
    "entries_without_key": ingress(
        "        t.apply();",
        TABLE + "    table t { actions = { set; } const @@entries = { } }\n",
    ),
    "switch_unknown_action": ingress(
        "        switch (t.apply().action_run) { @@set: { } }",
        TABLE + "    table t { key = { m.x: exact; } actions = { NoAction; } }\n",
    ),
    "switch_duplicate_case": ingress(
        "        switch (t.apply().action_run) { NoAction: { } @@NoAction: { } }",
        "    table t { key = { m.x: exact; } actions = { NoAction; } }\n",
    ),
    "switch_on_bool": ingress("        switch (@@m.f) { default: { } }"),
    "switch_duplicate_label": ingress("        switch (m.x) { 1: { } 2: { } @@1: { } }"),
    "switch_label_not_constant": ingress("        switch (m.x) { @@hdr.h.a: { } }"),
    "selector_key_with_an_action_profile": ingress(
        "        t.apply();",
        "    table t { key = { @@m.x: selector; } actions = { NoAction; }\n"
        '        @name("p") implementation = action_profile(32w4); }\n',
    ),
    "extern_method_unknown": ingress("        @@r.frobnicate();", "    register<bit<8>>(4) r;\n"),
    "extern_wrong_arg_count": ingress("        @@r.write(0);", "    register<bit<8>>(4) r;\n"),
    "lookahead_in_control": ingress("        m.x = @@hdr.st.next.a;"),
    "select_wrong_arity": parser(
        "    state start { p.extract(hdr.h);\n"
        "        transition select(hdr.h.a) { @@(1, 2): accept; default: accept; } }"
    ),
    "select_case_not_constant": parser(
        "    state start { p.extract(hdr.h);\n"
        "        transition select(hdr.h.a) { @@m.x: accept; default: accept; } }"
    ),
    "value_set_of_bool": parser(
        "    state start { transition accept; }", "    value_set<@@bool>(4) vs;\n"
    ),
    "value_set_size_not_constant": parser(
        "    state start { transition accept; }", "    value_set<bit<8>>(@@m.x) vs;\n"
    ),
    "value_set_zero_size": parser(
        "    state start { transition accept; }", "    value_set<bit<8>>(@@0) vs;\n"
    ),
    "value_set_wrong_key_width": parser(
        "    state start { p.extract(hdr.h);\n"
        "        transition select(hdr.h.b) { @@vs: accept; default: accept; } }",
        "    value_set<bit<8>>(4) vs;\n",
    ),
    "value_set_struct_for_one_key": parser(
        "    state start { p.extract(hdr.h);\n"
        "        transition select(hdr.h.a) { @@vs: accept; default: accept; } }",
        "    value_set<pair_t>(4) vs;\n",
    ),
    "value_set_as_expression": parser(
        "    state start { p.extract(hdr.h); m.x = @@vs; transition accept; }",
        "    value_set<bit<8>>(4) vs;\n",
    ),
    "value_set_in_control": ingress("", "    value_set<bit<8>>(4) @@vs;\n"),
    # A value set field's @match names one match kind (p4c's pvs-struct-3-bmv2 form).
    "value_set_match_unknown_kind": parser(
        "    state start { transition accept; }", "    value_set<vk_t>(4) vs;\n"
    ).replace(TYPES, TYPES + "struct vk_t { @match(@@fuzzy) bit<8> a; }\n", 1),
    "value_set_match_without_kind": parser(
        "    state start { transition accept; }", "    value_set<vk_t>(4) vs;\n"
    ).replace(TYPES, TYPES + "struct vk_t { @@@match() bit<8> a; }\n", 1),
    "ctor_param_assigned": top(
        "control Add(inout bit<8> x)(bit<8> k) { apply { @@k = 1; } }\n"
    ).replace(HEADER, HEADER + TYPES),
    "ctor_arg_not_constant": ingress(
        "        a.apply(m.x);",
        "    bit<8> v;\n    Add(@@v) a;\n",
    ).replace(
        INGRESS, "control Add(inout bit<8> x)(bit<8> k) { apply { x = x + k; } }\n" + INGRESS
    ),
    "ctor_control_applied_by_type": ingress("        @@Add.apply(m.x);").replace(
        INGRESS, "control Add(inout bit<8> x)(bit<8> k) { apply { x = x + k; } }\n" + INGRESS
    ),
    "ctor_arg_count": ingress("        a.apply(m.x);", "    Add() @@a;\n").replace(
        INGRESS, "control Add(inout bit<8> x)(bit<8> k) { apply { x = x + k; } }\n" + INGRESS
    ),
    "union_of_bits": top("header_union u_t { @@bit<8> a; }\n"),
    "union_set_valid": ingress("        @@hdr.u.setValid();").replace(
        "struct hs { h_t h;", "header_union u_t { h_t x; }\nstruct hs { u_t u; h_t h;"
    ),
    "last_index_in_control": ingress("        m.x = (bit<8>)@@hdr.st.lastIndex;"),
    "last_in_control": ingress("        m.x = @@hdr.st.last.a;"),
    "struct_expr_field_twice": ingress("        pair_t v = { a = 1, a = @@2 };"),
    "struct_expr_wrong_type": ingress("        pair_t v = { a = @@true, b = 2 };"),
    "invalid_header_to_struct": ingress("        pair_t v = @@{#};"),
    "field_list_not_constant": ingress("        resubmit_preserving_field_list(@@m.x);"),
    "range_not_constant": parser(
        "    state start { p.extract(hdr.h);\n"
        "        transition select(hdr.h.a) { 1 .. @@m.x: accept; default: accept; } }"
    ),
    "priority_not_constant": ingress(
        "        t.apply();",
        TABLE + "    table t { key = { m.x: ternary; } actions = { set; }"
        " const entries = { priority = @@m.x : 1 : set(1); } }\n",
    ),
    "bound_arg_not_lvalue": ingress(
        "        t.apply();",
        "    action inc(inout bit<8> v) { v = v + 1; }\n"
        "    table t { key = { m.x: exact; } actions = { inc(@@1); } }\n",
    ),
    # A generic sub-parser's out type comes from the argument's declared type.
    "subparser_out_type_parameter_unknown": parser(
        "    state start { p.extract(hdr.st.next); sub.apply(p, @@hdr.st.last);"
        " transition accept; }",
        "    S() sub;\n",
    ).replace(
        "parser P(",
        "parser S<H>(packet_in q, out H h) { state start { transition accept; } }\nparser P(",
        1,
    ),
    # A control-typed constructor parameter needs an instance, not a value.
    "control_argument_not_an_instance": ingress(
        "        o.apply(hdr.h);", "    O(@@5) o;\n"
    ).replace(
        INGRESS,
        "control K(inout h_t h);\ncontrol O(inout h_t h)(K k) { apply { k.apply(h); } }\n"
        + INGRESS,
    ),
    # An instance passed by name is shared; a table in it would sit twice in BMv2's graph.
    "shared_instance_with_table": ingress(
        "        o.apply(hdr.h);", "    K() k;\n    O(@@k) o;\n"
    ).replace(
        INGRESS,
        "control K_t(inout h_t h);\n"
        "control K(inout h_t h) { table t { actions = { NoAction; } }"
        " apply { t.apply(); } }\n"
        "control O(inout h_t h)(K_t k) { apply { k.apply(h); } }\n" + INGRESS,
    ),
    # BMv2 gives a table one next node per action (p4c: "has multiple successors").
    "table_applied_twice_different_successors": ingress(
        "        if (m.f) { t.apply(); m.x = 1; } else { t.apply(); }",
        "    table @@t { actions = { NoAction; } }\n",
    ),
    "function_wrong_return": top("bit<8> f(in bit<8> x) { return @@true; }\n"),
    "call_non_function": ingress("        m.x = @@m.x(1);"),
    "package_wrong_block": HEADER
    + TYPES
    + PARSER
    + INGRESS
    + "    apply { }\n}\n"
    + REST.replace("V1Switch(P(), V(), I()", "V1Switch(P(), V(), @@P()"),
    # p4c specialises it under a new name; which P4Info names its tables take is unknown.
    "main_control_constructor_arguments": HEADER
    + TYPES
    + PARSER
    + INGRESS.replace(") {", ")(bit<8> x) {")
    + "    apply { m.x = x; }\n}\n"
    + REST.replace("V1Switch(P(), V(), I()", "V1Switch(P(), V(), @@I(8w1)"),
}


def test_main_control_constructor_arguments_named(compile_text: CompileText) -> None:
    text, _, _ = _located(CASES["main_control_constructor_arguments"])
    err = compile_text(text).err
    assert "constructor arguments of 'I' given to V1Switch are not supported yet" in err


def _located(text: str) -> tuple[str, int, int]:
    index = text.index(MARK)
    before = text[:index]
    line = before.count("\n") + 1
    col = index - (before.rfind("\n") + 1) + 1
    return text.replace(MARK, "", 1), line, col


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input(compile_text: CompileText, name: str) -> None:
    text, line, col = _located(CASES[name])
    result = compile_text(text)
    assert result.status == 1, result.err
    assert "Traceback" not in result.err
    first, source_line, caret = result.err.rstrip("\n").split("\n")[:3]
    m = re.match(r"^(.*\.p4):(\d+):(\d+): error: (.+)$", first)
    assert m, first
    assert (int(m[2]), int(m[3])) == (line, col), first
    if m[1].endswith("prog.p4"):
        assert source_line == text.split("\n")[line - 1]
    assert caret.endswith("^") and caret.strip() == "^"
    assert not result.json_path.exists()


def test_suite_size() -> None:
    assert len(CASES) >= 50
