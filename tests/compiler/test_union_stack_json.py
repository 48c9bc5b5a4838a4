"""Stacks of header unions in BMv2 JSON, as p4c-bm2-ss lays them out and refers
to them, run-time indices into them, and the forms the compiler still refuses."""

import json

from compiler_helpers import CompileText

HEADER = "#include <core.p4>\n#include <v1model.p4>\n"
TYPES = """
header a_t { bit<8> kind; bit<8> x; }
header b_t { bit<8> kind; bit<16> y; }
header_union opt_t { a_t a; b_t b; }
struct hs { a_t first; opt_t[2] opts; }
struct meta_t { bit<8> i; }
"""
PARSER = """
parser P(packet_in pk, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.opts.next.a);
        transition select(hdr.opts.last.a.x) {
            0: accept;
            default: parse_b;
        }
    }
    state parse_b {
        pk.extract(hdr.opts.next.b);
        m.i = (bit<8>)hdr.opts.lastIndex;
        transition accept;
    }
}
"""
BLOCKS = """
control V(inout hs hdr, inout meta_t m) { apply { } }
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in hs hdr) { apply { pk.emit(hdr.opts); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""
INGRESS = """
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    opt_t[2] saved;
    apply {
        hdr.opts.push_front(1);
        saved = hdr.opts;
        if (hdr.opts[1].isValid()) { hdr.opts[1].b.y = 7; }
    }
}
"""


def test_union_stacks_are_laid_out_and_used_as_p4c_does(compile_text: CompileText) -> None:
    result = compile_text(HEADER + TYPES + PARSER + INGRESS + BLOCKS)
    assert result.status == 0, result.err
    program = json.loads(result.json_path.read_text())
    unions = program["header_unions"]
    assert [u["name"] for u in unions] == ["opts[0]", "opts[1]", "I.saved[0]", "I.saved[1]"]
    headers = {h["id"]: h["name"] for h in program["headers"]}
    assert [headers[i] for i in unions[1]["header_ids"]] == ["opts[1].a", "opts[1].b"]
    assert program["header_union_stacks"][0] == {
        "name": "opts",
        "id": 0,
        "union_type": "opt_t",
        "size": 2,
        "header_union_ids": [0, 1],
    }
    assert program["header_union_stacks"][1]["header_union_ids"] == [2, 3]
    start, parse_b = program["parsers"][0]["parse_states"]
    assert start["parser_ops"][0]["parameters"] == [{"type": "union_stack", "value": ["opts", "a"]}]
    assert start["transition_key"] == [{"type": "union_stack_field", "value": ["opts", "a", "x"]}]
    index = json.dumps(parse_b["parser_ops"][1])
    assert '"last_stack_index"' in index and '"header_union_stack"' in index
    prims = [p for a in program["actions"] for p in a["primitives"]]
    push = next(p for p in prims if p["op"] == "push")
    assert push["parameters"][0] == {"type": "header_union_stack", "value": "opts"}
    copy = next(p for p in prims if p["op"] == "assign_union_stack")
    assert copy["parameters"] == [
        {"type": "header_union_stack", "value": "I.saved"},
        {"type": "header_union_stack", "value": "opts"},
    ]
    assert '"valid_union"' in json.dumps(program["pipelines"][0]["conditionals"])
    assert program["deparsers"][0]["order"] == ["opts[0].a", "opts[0].b", "opts[1].a", "opts[1].b"]


def test_run_time_indices_into_a_union_stack_use_bmv2_dereferences(
    compile_text: CompileText,
) -> None:
    """hdr.opts[m.i].b.y: dereference_union_stack, then access_union_header (b is
    member 1), then access_field (y is field 1), as JSON_format.md defines them."""
    control = (
        "control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {\n"
        "    apply { if (hdr.opts[m.i].isValid()) { hdr.opts[m.i].b.y = 7; } }\n}\n"
    )
    result = compile_text(HEADER + TYPES + PARSER + control + BLOCKS)
    assert result.status == 0, result.err
    program = json.loads(result.json_path.read_text())
    union = {
        "type": "expression",
        "value": {
            "op": "dereference_union_stack",
            "left": {"type": "header_union_stack", "value": "opts"},
            "right": {"type": "field", "value": ["scalars", "userMetadata.i"]},
        },
    }
    [condition] = program["pipelines"][0]["conditionals"]
    assert condition["expression"]["value"] == {"op": "valid_union", "left": None, "right": union}
    [write] = [p for a in program["actions"] for p in a["primitives"] if p["op"] == "assign"]
    member = {
        "type": "expression",
        "value": {"op": "access_union_header", "left": union, "right": 1},
    }
    field = {"type": "expression", "value": {"op": "access_field", "left": member, "right": 1}}
    # A primitive's expression parameter wraps the expression once more.
    assert write["parameters"][0] == {"type": "expression", "value": field}


def test_last_of_a_union_stack_outside_a_select_is_refused(compile_text: CompileText) -> None:
    parser = PARSER.replace("m.i = (bit<8>)hdr.opts.lastIndex;", "m.i = hdr.opts.last.a.x;")
    result = compile_text(HEADER + TYPES + parser + INGRESS + BLOCKS)
    assert result.status == 1
    assert "'last' of a header union stack can only be read in a select key" in result.err
