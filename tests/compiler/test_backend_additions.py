"""BMv2 JSON of the constructs added after the first back end: select ranges, reject,
stack `last`/`lastIndex`, struct assignment, bound action arguments, constructor
parameters, entry priorities, log_msg arguments and checksums over the payload."""

import json
from typing import Any

from compiler_helpers import CompileText

PROGRAM = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct pair_t { bit<8> x; bit<8> y; }
struct hs { h_t h; h_t[3] s; }
struct meta_t { pair_t p; pair_t q; bit<32> n; }
parser P(packet_in pk, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition select(hdr.h.a) {
            1 .. 6: more;
            0: reject;
            default: accept;
        }
    }
    state more {
        pk.extract(hdr.s.next);
        m.n = hdr.s.lastIndex;
        transition select(hdr.s.last.a) {
            0: accept;
            default: more;
        }
    }
}
control V(inout hs hdr, inout meta_t m) { apply { } }
control Add(inout bit<8> v)(bit<8> k) { apply { v = v + k; } }
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    Add(8w3) add3;
    action bump(inout bit<8> target, bit<8> by) { target = target + by; }
    table t {
        key = { hdr.h.a: ternary; }
        actions = { bump(hdr.h.b); }
        const entries = {
            priority = 5: 0x01 &&& 0xFF : bump(hdr.h.b, 1);
            priority = 9: _ : bump(hdr.h.b, 2);
        }
    }
    apply {
        m.q = m.p;
        m.p = { x = 1, y = hdr.h.a };
        add3.apply(hdr.h.a);
        t.apply();
        log_msg("a={} b={}", { hdr.h.a, hdr.h.b });
    }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs hdr, inout meta_t m) {
    apply {
        update_checksum_with_payload(true, { hdr.h.a }, hdr.h.b, HashAlgorithm.csum16);
    }
}
control D(packet_out pk, in hs hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def _program(compile_text: CompileText) -> dict:
    result = compile_text(PROGRAM)
    assert result.status == 0, result.err
    return json.loads(result.json_path.read_text())


def _state(program: dict, name: str) -> dict:
    states = program["parsers"][0]["parse_states"]
    return next(s for s in states if s["name"] == name)


def test_select_range_becomes_masks_and_reject_ends_parsing(compile_text: CompileText) -> None:
    start = _state(_program(compile_text), "start")
    ranges = [(t["value"], t["mask"]) for t in start["transitions"] if t["next_state"] == "more"]
    # 1..6 is {1}, {2, 3}, {4, 5}, {6}.
    assert ranges == [("0x01", None), ("0x02", "0xfe"), ("0x04", "0xfe"), ("0x06", None)]
    reject = next(t for t in start["transitions"] if t["value"] == "0x00")
    assert reject["next_state"] is None


def test_stack_last_and_last_index(compile_text: CompileText) -> None:
    more = _state(_program(compile_text), "more")
    assert more["transition_key"] == [{"type": "stack_field", "value": ["s", "a"]}]
    set_n = more["parser_ops"][1]
    assert set_n["op"] == "set"
    # A `set` source of type expression wraps a whole expression, as in actions.
    assert set_n["parameters"][1]["value"]["value"]["op"] == "last_stack_index"


def test_struct_assignment_is_per_member(compile_text: CompileText) -> None:
    program = _program(compile_text)
    prims = [p for a in program["actions"] for p in a["primitives"] if a["name"].startswith("act")]
    targets = [p["parameters"][0]["value"] for p in prims if p["op"] == "assign"]
    assert ["scalars", "userMetadata.q.x"] in targets
    assert ["scalars", "userMetadata.p.y"] in targets


def test_bound_arguments_and_priorities(compile_text: CompileText) -> None:
    program = _program(compile_text)
    bump = next(a for a in program["actions"] if a["name"] == "I.bump")
    assert [r["name"] for r in bump["runtime_data"]] == ["by"]
    table = next(t for t in program["pipelines"][0]["tables"] if t["name"] == "I.t")
    # The larger P4 priority wins; BMv2 wants the smaller number first.
    assert [e["priority"] for e in table["entries"]] == [5, 1]
    assert [e["action_entry"]["action_data"] for e in table["entries"]] == [["0x01"], ["0x02"]]


def test_log_msg_arguments_and_payload_checksum(compile_text: CompileText) -> None:
    program = _program(compile_text)
    logs = [p for a in program["actions"] for p in a["primitives"] if p["op"] == "log_msg"]
    assert logs[0]["parameters"][1]["type"] == "parameters_vector"
    assert len(logs[0]["parameters"][1]["value"]) == 2
    calc = program["calculations"][0]
    assert calc["input"][-1] == {"type": "payload", "value": None}


FIELD_LISTS = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct hs { h_t h; }
struct meta_t { @field_list(2) bit<8> keep; bit<8> other; @field_list(2, 0) bit<16> both; }
parser P(packet_in pk, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control V(inout hs hdr, inout meta_t m) { apply { } }
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (hdr.h.a == 0) { resubmit_preserving_field_list(2); }
        else { clone_preserving_field_list(CloneType.I2E, 5, 0); }
    }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (hdr.h.a == 0) { recirculate_preserving_field_list(2); }
        else { clone_preserving_field_list(CloneType.E2E, 6, 2); }
    }
}
control C(inout hs hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in hs hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def _ops(program: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return {p["op"]: p["parameters"] for a in program["actions"] for p in a["primitives"]}


def _hexstr32(value: int) -> dict[str, str]:
    return {"type": "hexstr", "value": f"0x{value:08x}"}


def test_preserved_field_lists_as_p4c_emits_them(compile_text: CompileText) -> None:
    # p4c 1.2.4 (backends/bmv2/simple_switch/simpleSwitch.cpp): resubmit and recirculate,
    # the primitives BMv2 1.15 knows, with the id of the list named field_list<index>,
    # a 32-bit constant; clone with the session, then that id.  Ids count from 1 in the
    # order the indices are first tagged: 0 is BMv2's "resubmit not called".
    result = compile_text(FIELD_LISTS)
    assert result.status == 0, result.err
    program = json.loads(result.json_path.read_text())
    lists = {
        fl["id"]: (fl["name"], [e["value"][1] for e in fl["elements"]])
        for fl in program["field_lists"]
    }
    assert lists == {
        1: ("field_list2", ["userMetadata.keep", "userMetadata.both"]),
        2: ("field_list0", ["userMetadata.both"]),
    }
    ops = _ops(program)
    assert not [op for op in ops if op.endswith("_preserving_field_list")]
    assert ops["resubmit"] == [_hexstr32(1)]
    assert ops["recirculate"] == [_hexstr32(1)]
    assert ops["clone_ingress_pkt_to_egress"] == [_hexstr32(5), _hexstr32(2)]
    assert ops["clone_egress_pkt_to_egress"] == [_hexstr32(6), _hexstr32(1)]


def test_a_field_list_no_field_lists_preserves_nothing(compile_text: CompileText) -> None:
    # As p4c compiles its issue1043-bmv2: an empty field list, not an error.
    result = compile_text(
        FIELD_LISTS.replace(
            "recirculate_preserving_field_list(2)", "recirculate_preserving_field_list(7)"
        )
    )
    assert result.status == 0, result.err
    program = json.loads(result.json_path.read_text())
    lists = {fl["name"]: (fl["id"], fl["elements"]) for fl in program["field_lists"]}
    assert lists["field_list7"] == (3, [])
    assert _ops(program)["recirculate"] == [_hexstr32(3)]


def test_data_field_lists_follow_the_tagged_ones(compile_text: CompileText) -> None:
    # resubmit(data) of older v1model: a list of its own, after the @field_list ones,
    # shared by calls naming the same fields.
    text = FIELD_LISTS.replace(
        "resubmit_preserving_field_list(2);", "resubmit({ m.other });"
    ).replace("clone_preserving_field_list(CloneType.I2E, 5, 0);", "resubmit({ m.other });")
    result = compile_text(text)
    assert result.status == 0, result.err
    program = json.loads(result.json_path.read_text())
    lists = {fl["id"]: (fl["name"], fl["elements"]) for fl in program["field_lists"]}
    other = {"type": "field", "value": ["scalars", "userMetadata.other"]}
    assert lists[3] == ("fl_3", [other])
    resubmits = [p for a in program["actions"] for p in a["primitives"] if p["op"] == "resubmit"]
    assert [p["parameters"] for p in resubmits] == [[_hexstr32(3)], [_hexstr32(3)]]


UNION = """#include <core.p4>
#include <v1model.p4>
header tag_t { bit<8> kind; }
header a_t { bit<8> x; }
header b_t { bit<16> y; }
header_union ab_t { a_t a; b_t b; }
struct hs { tag_t tag; ab_t u; }
struct meta_t { }
parser P(packet_in pk, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.tag);
        transition select(hdr.tag.kind) { 1: parse_a; default: parse_b; }
    }
    state parse_a { pk.extract(hdr.u.a); transition accept; }
    state parse_b { pk.extract(hdr.u.b); transition accept; }
}
control V(inout hs hdr, inout meta_t m) { apply { } }
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { if (!hdr.u.isValid()) { hdr.u.a.setValid(); } }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in hs hdr) { apply { pk.emit(hdr.tag); pk.emit(hdr.u); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def test_header_union(compile_text: CompileText) -> None:
    result = compile_text(UNION)
    assert result.status == 0, result.err
    program = json.loads(result.json_path.read_text())
    assert program["header_union_types"] == [
        {"name": "ab_t", "id": 0, "headers": [["a", "a_t"], ["b", "b_t"]]}
    ]
    ids = {h["name"]: h["id"] for h in program["headers"]}
    union = program["header_unions"][0]
    assert (union["name"], union["union_type"]) == ("u", "ab_t")
    assert union["header_ids"] == [ids["u.a"], ids["u.b"]]
    assert program["deparsers"][0]["order"] == ["tag", "u.a", "u.b"]
    condition = program["pipelines"][0]["conditionals"][0]["expression"]["value"]
    assert condition["right"]["value"]["op"] == "valid_union"


def test_digest_of_an_initializer_copies_the_values(compile_text: CompileText) -> None:
    text = FIELD_LISTS.replace(
        "struct meta_t {",
        "struct learn_t { bit<8> a; bit<9> port; }\nstruct meta_t {",
    ).replace(
        "recirculate_preserving_field_list(2);",
        "digest<learn_t>(1, { hdr.h.a, sm.egress_port });",
    )
    result = compile_text(text)
    assert result.status == 0, result.err
    program = json.loads(result.json_path.read_text())
    learn = program["learn_lists"][0]
    assert learn["name"] == "learn_t"
    copies = [e["value"] for e in learn["elements"]]
    assert copies == [["scalars", "tmp_digest_learn_t.a"], ["scalars", "tmp_digest_learn_t.port"]]
    prims = [p for a in program["actions"] for p in a["primitives"]]
    ops = [p["op"] for p in prims]
    assert ops[ops.index("generate_digest") - 2 : ops.index("generate_digest")] == [
        "assign",
        "assign",
    ]


def test_support_timeout(compile_text: CompileText) -> None:
    """v1model's `support_timeout = true` is BMv2's "support_timeout" and P4Info's
    NOTIFY_CONTROL."""
    program = UNION.replace(
        "    apply { if (!hdr.u.isValid())",
        "    table aging { key = { hdr.tag.kind: exact; } actions = { NoAction; }\n"
        "                  support_timeout = true; }\n"
        "    table plain { key = { hdr.tag.kind: exact; } actions = { NoAction; } }\n"
        "    apply { aging.apply(); plain.apply(); if (!hdr.u.isValid())",
    )
    result = compile_text(program)
    assert result.status == 0, result.err
    bmv2 = json.loads(result.json_path.read_text())
    tables = {tb["name"]: tb for p in bmv2["pipelines"] for tb in p["tables"]}
    assert tables["I.aging"]["support_timeout"] is True
    assert tables["I.plain"]["support_timeout"] is False
    p4info = result.p4info_path.read_text()
    assert p4info.count("idle_timeout_behavior: NOTIFY_CONTROL") == 1

    bad = compile_text(program.replace("support_timeout = true", "support_timeout = 3"))
    assert bad.status == 1
    assert "support_timeout must be true or false" in bad.err


def test_a_call_of_a_function_named_like_a_control_calls_the_function(
    compile_text: CompileText,
) -> None:
    # A control named verify_checksum beside v1model's extern function: the constructor
    # call builds the package from the control, and a call statement is the function's.
    program = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<16> a; bit<16> csum; }
struct hs { h_t h; }
struct meta_t { }
parser P(packet_in pk, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control verify_checksum(inout hs hdr, inout meta_t m) {
    apply { }
}
control V(inout hs hdr, inout meta_t m) {
    apply { verify_checksum(true, { hdr.h.a }, hdr.h.csum, HashAlgorithm.csum16); }
}
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in hs hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""
    result = compile_text(program)
    assert result.status == 0, result.err
    [checksum] = json.loads(result.json_path.read_text())["checksums"]
    assert (checksum["verify"], checksum["target"]) == (True, ["h", "csum"])
