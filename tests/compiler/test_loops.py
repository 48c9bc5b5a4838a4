"""For loops (spec 12.8): their BMv2 form (an action's jump primitives, a loop in an
apply block moved into an action of its own) and the errors for loops BMv2 cannot run.
Their behaviour on packets is tests/conformance/for_loops.p4's."""

import json

import pytest
from compiler_helpers import CompileText

PROGRAM = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> n; bit<8> s; }
struct hs { h_t h; h_t[2] st; }
struct meta_t { bit<8> x; }
PRELUDE
parser P(packet_in p, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { p.extract(hdr.h); STATE transition accept; }
}
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    table t { key = { m.x: exact; } actions = { NoAction; } }
    action count() {
        for (bit<8> i = 0; i < hdr.h.n; i = i + 1) {
            if (i == 3) { continue; }
            hdr.h.s = hdr.h.s + 1;
        }
    }
    apply {
BODY
    }
}
control V(inout hs hdr, inout meta_t m) { apply { } }
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs hdr, inout meta_t m) { apply { } }
control D(packet_out p, in hs hdr) { apply { p.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def program(body: str = "", state: str = "", prelude: str = "") -> str:
    return PROGRAM.replace("BODY", body).replace("STATE", state).replace("PRELUDE", prelude)


def _target(prim: dict) -> int:
    return int(prim["parameters"][-1]["value"], 16)


def test_action_loop_jumps_back_to_its_test(compile_text: CompileText) -> None:
    result = compile_text(program("        count();"))
    assert result.status == 0, result.err
    actions = json.loads(result.json_path.read_text())["actions"]
    prims = next(a for a in actions if a["name"] == "I.count")["primitives"]
    ops = [p["op"] for p in prims]
    # i = 0; the test, leaving to the end; continue's if; the sum; i = i + 1; back.
    assert ops[0] == "assign"
    assert ops[1] == "_jump_if_zero" and _target(prims[1]) == len(prims)
    assert ops[-1] == "_jump" and _target(prims[-1]) == 1
    update = len(prims) - 2
    assert prims[update]["op"] == "assign"
    assert any(p["op"] == "_jump" and _target(p) == update for p in prims), "continue"


def test_apply_loop_runs_in_a_synthesized_action(compile_text: CompileText) -> None:
    body = (
        "        for (bit<8> i = 0; i < hdr.h.n; i = i + 1) { m.x = m.x + 1; }\n        t.apply();"
    )
    result = compile_text(program(body))
    assert result.status == 0, result.err
    ingress = json.loads(result.json_path.read_text())["pipelines"][0]
    first = next(x for x in ingress["tables"] if x["name"] == ingress["init_table"])
    assert first["name"].startswith("tbl_act")
    assert first["base_default_next"] == "I.t"


@pytest.mark.parametrize(
    ("body", "state", "prelude", "message"),
    [
        ("        break;", "", "", "break is only allowed inside a for loop"),
        ("        if (m.x == 0) { continue; }", "", "", "continue is only allowed inside"),
        (
            "",
            "for (bit<8> i = 0; i < 2; i = i + 1) { }",
            "",
            "a for loop cannot run in a parser; loop through its states",
        ),
        (
            "",
            "hdr.h.s = f(hdr.h.n);",
            "bit<8> f(in bit<8> v) { bit<8> r = 0;"
            " for (bit<8> i = 0; i < v; i = i + 1) { r = r + 2; } return r; }",
            "'f' has a for loop, which cannot run in a parser",
        ),
        (
            "        for (bit<8> i = 0; i < 2; i = i + 1) { t.apply(); }",
            "",
            "",
            "cannot apply tables or controls or return: BMv2's control graph has no loops",
        ),
        (
            "        for (bit<8> x in m.x) { }",
            "",
            "",
            "a for-in loop runs over a range 'lo .. hi', a list expression or a header stack,"
            " not a value of type bit<8>",
        ),
        ("        for (bit<8> i = 0; i; i = i + 1) { }", "", "", "expected a value of type bool"),
    ],
)
def test_loops_bmv2_cannot_run_are_refused(
    compile_text: CompileText, body: str, state: str, prelude: str, message: str
) -> None:
    result = compile_text(program(body, state, prelude))
    assert result.status == 1
    assert "Traceback" not in result.err
    assert message in result.err.splitlines()[0], result.err
