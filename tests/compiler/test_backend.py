"""BMv2 JSON for v1model externs and control flow beyond l3_forward."""

import json

import pytest
from compiler_helpers import CompileText
from finsy.proto import p4i
from google.protobuf import text_format

# Typed register and counter indices and PortId_t are v1model 20200408 declarations.
HEADER = "#include <core.p4>\n#define V1MODEL_VERSION 20200408\n#include <v1model.p4>\n"
TYPES = """
header h_t { bit<8> a; bit<16> b; }
struct hs { h_t h; }
struct meta_t { bit<32> q; bool flag; bit<16> r; }
"""
BLOCKS = """
parser P(packet_in pk, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition select(hdr.h.a, hdr.h.b) {
            (1, _): accept;
            (2, 0x10 &&& 0xF0): accept;
            default: accept;
        }
    }
}
control V(inout hs hdr, inout meta_t m) { apply { } }
control C(inout hs hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in hs hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""
EXTERNS = """
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    register<bit<32>, bit<32>>(64) qlen;
    counter(32, CounterType.packets) pkts;
    meter(8, MeterType.bytes) rate;
    action set_q(bit<32> v) { qlen.write(0, v); m.q = v; }
    action rd() {
        qlen.read(m.q, 0);
        random(m.r, 16w0, 16w100);
        pkts.count(32w1);
        rate.execute_meter(32w2, m.r);
        hash(m.r, HashAlgorithm.crc16, 16w0, { hdr.h.a, hdr.h.b }, 32w1024);
        m.flag = m.q > 10;
    }
    action mark(bit<8> th) { if (hdr.h.a > th) { hdr.h.a = 0; } else { hdr.h.b = 7; } }
    table t {
        key = { hdr.h.a: exact; hdr.h.b: ternary; }
        actions = { set_q; rd; mark; @defaultonly NoAction; }
    }
    apply {
        if (t.apply().hit) { rd(); }
        m.q = m.q + 1;
        hdr.h.b[7:4] = 3;
        if (m.flag) { mark_to_drop(sm); exit; }
    }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { m.q = sm.enq_qdepth ++ 13w0; }
}
"""


def _load(compile_text: CompileText, body: str) -> tuple[dict, p4i.P4Info]:
    result = compile_text(HEADER + TYPES + body + BLOCKS)
    assert result.status == 0, result.err
    program = json.loads(result.json_path.read_text())
    info = text_format.Parse(result.p4info_path.read_text(), p4i.P4Info())
    return program, info


def _action(program: dict, name: str) -> dict:
    return next(a for a in program["actions"] if a["name"] == name)


def test_extern_arrays_and_primitives(compile_text: CompileText) -> None:
    program, info = _load(compile_text, EXTERNS)
    assert program["register_arrays"] == [{"name": "I.qlen", "id": 0, "size": 64, "bitwidth": 32}]
    assert program["counter_arrays"][0]["name"] == "I.pkts"
    assert program["meter_arrays"][0]["type"] == "bytes"
    ops = [p["op"] for p in _action(program, "I.rd")["primitives"]]
    assert ops == [
        "register_read",
        "modify_field_rng_uniform",
        "count",
        "execute_meter",
        "modify_field_with_hash_based_offset",
        "assign",
    ]
    write = _action(program, "I.set_q")["primitives"][0]
    assert write["parameters"][0] == {"type": "register_array", "value": "I.qlen"}
    calc = program["calculations"][0]
    assert calc["algo"] == "crc16" and len(calc["input"]) == 2
    flag = _action(program, "I.rd")["primitives"][-1]["parameters"][1]
    assert flag["type"] == "expression" and flag["value"]["value"]["op"] == "b2d"
    assert info.registers[0].preamble.name == "I.qlen"
    assert info.registers[0].type_spec.bitstring.bit.bitwidth == 32
    assert info.counters[0].spec.unit == p4i.CounterSpec.PACKETS
    assert info.meters[0].spec.unit == p4i.MeterSpec.BYTES


def test_hit_branch_and_synthesized_tables(compile_text: CompileText) -> None:
    program, info = _load(compile_text, EXTERNS)
    ingress = program["pipelines"][0]
    tables = {t["name"]: t for t in ingress["tables"]}
    assert ingress["init_table"] == "I.t"
    assert set(tables["I.t"]["next_tables"]) == {"__HIT__", "__MISS__"}
    assert tables["I.t"]["match_type"] == "ternary"
    hit = tables[tables["I.t"]["next_tables"]["__HIT__"]]
    assert hit["actions"] == ["I.rd"] and hit["default_entry"]["action_const"] is True
    assert [t.preamble.name for t in info.tables] == ["I.t"]
    noaction = info.tables[0].action_refs[-1]
    assert noaction.scope == p4i.ActionRef.DEFAULT_ONLY


def test_if_in_action_uses_jumps(compile_text: CompileText) -> None:
    program, _ = _load(compile_text, EXTERNS)
    skip, then, leave, otherwise = _action(program, "I.mark")["primitives"]
    assert skip["op"] == "_jump_if_zero"
    assert skip["parameters"][0]["value"]["value"]["op"] == "b2d"
    assert skip["parameters"][1] == {"type": "hexstr", "value": "0x00000003"}
    assert then["parameters"][0]["value"] == ["h", "a"]
    assert leave == {"op": "_jump", "parameters": [{"type": "hexstr", "value": "0x00000004"}]}
    assert otherwise["parameters"][0]["value"] == ["h", "b"]


def test_return_and_extern_calls_under_if(compile_text: CompileText) -> None:
    body = EXTERNS.replace(
        "action mark(bit<8> th) {",
        "action mark(bit<8> th) { if (th == 0) { mark_to_drop(sm); return; }",
    )
    program, _ = _load(compile_text, body)
    prims = _action(program, "I.mark")["primitives"]
    assert [p["op"] for p in prims[:3]] == ["_jump_if_zero", "mark_to_drop", "_jump"]
    assert prims[2]["parameters"][0]["value"] == f"0x{len(prims):08x}"


def test_select_with_masks_and_concatenation(compile_text: CompileText) -> None:
    program, _ = _load(compile_text, EXTERNS)
    transitions = program["parsers"][0]["parse_states"][0]["transitions"]
    assert transitions[0] == {
        "type": "hexstr",
        "value": "0x010000",
        "mask": "0xff0000",
        "next_state": None,
    }
    assert transitions[1]["value"] == "0x020010" and transitions[1]["mask"] == "0xff00f0"
    egress = program["pipelines"][1]
    act = egress["tables"][0]["actions"][0]
    concat = _action(program, act)["primitives"][0]["parameters"][1]["value"]["value"]
    assert concat["op"] == "|"
    assert program["deparsers"][0]["order"] == ["h"]


def test_unsupported_features_are_named(compile_text: CompileText) -> None:
    result = compile_text(HEADER + "header h_t { bit<8> a; }\nstruct s { bit<8>[2] hs; }\n")
    assert result.status == 1
    assert "stacks of bit<8> are not supported yet" in result.err


VARBIT = """
header v_t { bit<8> len; varbit<32> opts; }
struct vs { v_t v; v_t w; }
parser P(packet_in pk, out vs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { EXTRACT transition accept; }
}
control V(inout vs hdr, inout meta_t m) { apply { } }
control I(inout vs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { BODY } }
control E(inout vs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout vs hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in vs hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def _varbit(extract: str, body: str = "") -> str:
    types = "struct meta_t { bit<32> q; }\n"
    return HEADER + types + VARBIT.replace("EXTRACT", extract).replace("BODY", body)


def test_varbit_field_and_extract_with_size(compile_text: CompileText) -> None:
    result = compile_text(_varbit("pk.extract(hdr.v, (bit<32>)hdr.v.len);"))
    assert result.status == 0, result.err
    program = json.loads(result.json_path.read_text())
    v_t = next(h for h in program["header_types"] if h["name"] == "v_t")
    assert v_t["fields"] == [["len", 8, False], ["opts", "*", False]]
    assert v_t["max_length"] == 5  # bytes: 8 fixed bits + 32 varbit bits
    [op] = program["parsers"][0]["parse_states"][0]["parser_ops"]
    assert op["op"] == "extract_VL"
    header, size = op["parameters"]
    assert header == {"type": "regular", "value": "v"}
    assert size["type"] == "expression"
    assert "hdr.v" not in json.dumps(size) and "len" in json.dumps(size)


def test_varbit_header_needs_a_size(compile_text: CompileText) -> None:
    result = compile_text(_varbit("pk.extract(hdr.v);"))
    assert result.status == 1
    assert "extracted with extract(hdr, bits)" in result.err


def test_header_copy_carries_its_varbit(compile_text: CompileText) -> None:
    extract = "pk.extract(hdr.v, (bit<32>)hdr.v.len);"
    result = compile_text(_varbit(extract, "hdr.w = hdr.v;"))
    assert result.status == 0, result.err
    program = json.loads(result.json_path.read_text())
    assert any(p["op"] == "assign_header" for a in program["actions"] for p in a["primitives"])


def test_varbit_variable_is_a_metadata_instance_of_its_own(compile_text: CompileText) -> None:
    # As p4c keeps it: type `$varbit<N>` with the one field `field`, copied by assign_VL.
    extract = "pk.extract(hdr.v, (bit<32>)hdr.v.len);"
    source = _varbit(extract, "hdr.w.opts = m.s;").replace("bit<32> q;", "bit<32> q; varbit<32> s;")
    result = compile_text(source)
    assert result.status == 0, result.err
    program = json.loads(result.json_path.read_text())
    [vb] = [h for h in program["header_types"] if h["name"] == "$varbit32"]
    assert vb["fields"] == [["field", "*", False]] and vb["max_length"] == 4
    [inst] = [h for h in program["headers"] if h["header_type"] == "$varbit32"]
    assert inst["metadata"] is True
    [copy] = [p for a in program["actions"] for p in a["primitives"] if p["op"] == "assign_VL"]
    assert copy["parameters"] == [
        {"type": "field", "value": ["w", "opts"]},
        {"type": "field", "value": [inst["name"], "field"]},
    ]


@pytest.mark.parametrize(
    ("meta", "body", "message"),
    [
        ("varbit<12> s;", "", "varbit<12> outside a header"),
        ("", 'log_msg("v={}", {hdr.v.opts});', "a varbit value can only be assigned"),
        ("varbit<32> s;", "hdr.w.opts = m.q == 0 ? hdr.v.opts : m.s;", "read only from a varbit"),
    ],
)
def test_varbit_values_do_only_what_the_spec_allows(
    compile_text: CompileText, meta: str, body: str, message: str
) -> None:
    extract = "pk.extract(hdr.v, (bit<32>)hdr.v.len);"
    source = _varbit(extract, body).replace("bit<32> q;", f"bit<32> q; {meta}")
    result = compile_text(source)
    assert result.status == 1
    assert message in result.err


def test_saturating_arithmetic(compile_text: CompileText) -> None:
    program, _ = _load(compile_text, EXTERNS.replace("m.q = m.q + 1;", "m.q = m.q |-| 1;"))
    value = next(
        p["parameters"][1]["value"]["value"]
        for a in program["actions"]
        for p in a["primitives"]
        if p["op"] == "assign"
        and p["parameters"][0]["value"] == ["scalars", "userMetadata.q"]
        and p["parameters"][1]["type"] == "expression"
    )
    assert value["op"] == "usat_cast"
    assert value["left"]["value"]["op"] == "-"
    assert value["right"] == {"type": "hexstr", "value": "0x00000020"}


SWITCH = """
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    action a1() { m.q = 1; }
    action a2() { m.q = 2; }
    table t { key = { hdr.h.a: exact; } actions = { a1; a2; } }
    apply {
        switch (t.apply().action_run) {
            a1:
            a2: { m.q = 3; }
            default: { m.q = 4; }
        }
        m.q = 5;
    }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
"""


def test_switch_on_action_run(compile_text: CompileText) -> None:
    program, _ = _load(compile_text, SWITCH)
    tables = {t["name"]: t for t in program["pipelines"][0]["tables"]}
    nxt = tables["I.t"]["next_tables"]
    # a1 falls through to a2's body; NoAction (the implicit default) takes `default`.
    assert nxt["I.a1"] == nxt["I.a2"] != nxt["NoAction"]
    after = tables["I.t"]["base_default_next"]
    assert tables[nxt["I.a2"]]["base_default_next"] == after
    assert tables[nxt["NoAction"]]["base_default_next"] == after


def test_verify_checksum(compile_text: CompileText) -> None:
    body = SWITCH
    blocks = BLOCKS.replace(
        "control V(inout hs hdr, inout meta_t m) { apply { } }",
        "control V(inout hs hdr, inout meta_t m) { apply {\n"
        "    verify_checksum(hdr.h.isValid(), { hdr.h.a }, hdr.h.b, HashAlgorithm.csum16);\n"
        "} }",
    )
    result = compile_text(HEADER + TYPES + body + blocks)
    assert result.status == 0, result.err
    (cksum,) = json.loads(result.json_path.read_text())["checksums"]
    assert cksum["verify"] is True and cksum["update"] is False
    assert cksum["target"] == ["h", "b"]


ENTRIES = """
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    action set(bit<32> v) { m.q = v; }
    table t {
        key = { hdr.h.a: ternary; hdr.h.b: range; m.q: lpm; }
        actions = { set; NoAction; }
        const entries = {
            (0x10 &&& 0xF0, 5 .. 10, 0x0A000000 &&& 0xFF000000): set(7);
            (_, _, _): NoAction();
            priority = 9: (1, 2, 3): set(1);
        }
    }
    apply { t.apply(); }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
"""


def test_const_entries(compile_text: CompileText) -> None:
    program, info = _load(compile_text, ENTRIES)
    table = program["pipelines"][0]["tables"][0]
    assert table["match_type"] == "range"
    first, wildcard, explicit = table["entries"]
    assert first["match_key"] == [
        {"match_type": "ternary", "key": "0x10", "mask": "0xf0"},
        {"match_type": "range", "start": "0x0005", "end": "0x000a"},
        {"match_type": "lpm", "key": "0x0a000000", "prefix_length": 8},
    ]
    assert first["action_entry"]["action_data"] == ["0x00000007"]
    # BMv2 order (1 wins): the explicit priority 9 beats the implicit 3 and 2 of the
    # first two entries, which keep their source order.
    assert (first["priority"], wildcard["priority"], explicit["priority"]) == (7, 8, 1)
    assert wildcard["match_key"][1] == {"match_type": "range", "start": "0x0000", "end": "0xffff"}
    assert info.tables[0].is_const_table and info.tables[0].has_initial_entries
    assert info.tables[0].match_fields[1].match_type == p4i.MatchField.RANGE


INLINE = """
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    action fwd(bit<9> port) { sm.egress_spec = port; }
    action both(bit<9> p, bit<32> v) { fwd(p); m.q = v; }
    table t { key = { hdr.h.a: exact; } actions = { both; fwd; } }
    apply { t.apply(); fwd(3); fwd((bit<9>)m.r); }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
"""


def test_action_calls_are_inlined(compile_text: CompileText) -> None:
    program, info = _load(compile_text, INLINE)
    both = _action(program, "I.both")["primitives"]
    assert both[0]["parameters"] == [
        {"type": "field", "value": ["standard_metadata", "egress_spec"]},
        {"type": "runtime_data", "value": 0},
    ]
    tables = {t["name"]: t for t in program["pipelines"][0]["tables"]}
    # A constant argument becomes action data of a one-entry table ...
    assert tables["tbl_fwd_0"]["default_entry"]["action_data"] == ["0x0003"]
    # ... a run-time one is inlined into an action without parameters that keeps the
    # called action's name, as p4c's copy (gauntlet_index_4-bmv2-midend.p4).
    (copy_id,) = tables["tbl_fwd"]["action_ids"]
    copy = next(a for a in program["actions"] if a["id"] == copy_id)
    assert copy["name"] == "I.fwd"
    assert copy["runtime_data"] == []
    assert copy["primitives"][0]["parameters"][0]["value"] == ["standard_metadata", "egress_spec"]
    # P4Info lists the name once: the table's action, with its parameter, though the
    # copy comes first in the JSON (the apply block is lowered last statement first).
    assert copy_id < tables["tbl_fwd_0"]["action_ids"][0]
    (fwd,) = [a for a in info.actions if a.preamble.name == "I.fwd"]
    assert [p.name for p in fwd.params] == ["port"]


CALLED = """
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    action bump(inout bit<8> x) { x = x + 1; }
    action mark() { hdr.h.b = 7; }
    action unused() { hdr.h.b = 9; }
    apply { bump(hdr.h.a); mark(); }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
"""


def test_p4info_lists_actions_called_from_apply_blocks(compile_text: CompileText) -> None:
    """As p4c's P4Info for gauntlet_index_4-bmv2 (`do_something(h.h[0].a)` in an apply
    block lists `ingress.do_something`): the actions the compiler's own tables run, by
    their names and without parameters; an action nothing runs is not listed."""
    program, info = _load(compile_text, CALLED)
    listed = {a.preamble.name: list(a.params) for a in info.actions}
    assert listed == {"I.bump": [], "I.mark": []}
    assert not info.tables  # the tables that run them are the compiler's, hidden
    assert {t["name"] for p in program["pipelines"] for t in p["tables"]} >= {
        "tbl_bump",
        "tbl_mark",
    }


DIRECT = """
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    direct_counter(CounterType.packets_and_bytes) hits;
    direct_meter<bit<16>>(MeterType.packets) policer;
    action a1() { hits.count(); policer.read(m.r); }
    table t {
        key = { hdr.h.a: exact; }
        actions = { a1; }
        counters = hits;
        meters = policer;
        size = 64;
    }
    apply { t.apply(); }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
"""


def test_direct_counter_and_meter(compile_text: CompileText) -> None:
    program, info = _load(compile_text, DIRECT)
    assert program["counter_arrays"] == [
        {"name": "I.hits", "id": 0, "is_direct": True, "binding": "I.t"}
    ]
    (meter,) = program["meter_arrays"]
    assert meter["binding"] == "I.t" and meter["size"] == 64
    assert meter["result_target"] == ["scalars", "userMetadata.r"]
    table = program["pipelines"][0]["tables"][0]
    assert table["with_counters"] is True and table["direct_meters"] == "I.policer"
    assert _action(program, "I.a1")["primitives"] == []
    (counter,) = info.direct_counters
    assert counter.direct_table_id == info.tables[0].preamble.id
    assert counter.preamble.id >> 24 == 0x13
    assert set(info.tables[0].direct_resource_ids) == {
        counter.preamble.id,
        info.direct_meters[0].preamble.id,
    }


def test_controller_headers_in_p4info(compile_text: CompileText) -> None:
    types = TYPES + (
        '@controller_header("packet_in")\n'
        "header packet_in_t { PortId_t ingress_port; bit<7> pad; }\n"
        '@controller_header("packet_out")\n'
        "header packet_out_t { @id(5) bit<16> egress_port; }\n"
    )
    result = compile_text(HEADER + types + SWITCH + BLOCKS)
    assert result.status == 0, result.err
    info = text_format.Parse(result.p4info_path.read_text(), p4i.P4Info())
    packet_in, packet_out = info.controller_packet_metadata
    assert packet_in.preamble.name == "packet_in"
    assert packet_in.preamble.id >> 24 == 0x04
    assert [(m.id, m.name, m.bitwidth) for m in packet_in.metadata] == [
        (1, "ingress_port", 9),
        (2, "pad", 7),
    ]
    assert packet_out.metadata[0].id == 5


STACK_TYPES = """
header h_t { bit<8> a; bit<16> b; }
header l_t { bit<8> v; bit<8> bos; }
struct hs { h_t h; l_t[3] labels; }
struct meta_t { bit<32> q; bool flag; bit<16> r; }
"""
STACK = """
parser P(packet_in pk, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition lab; }
    state lab {
        pk.extract(hdr.labels.next);
        transition select(hdr.labels[0].bos) { 1: accept; default: lab; }
    }
}
control V(inout hs hdr, inout meta_t m) { apply { } }
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        if (hdr.labels[1].isValid()) {
            hdr.labels.pop_front(1);
        } else {
            hdr.labels.push_front(1);
            hdr.labels[0].setValid();
        }
    }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in hs hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def test_header_stacks(compile_text: CompileText) -> None:
    result = compile_text(HEADER + STACK_TYPES + STACK)
    assert result.status == 0, result.err
    program = json.loads(result.json_path.read_text())
    names = [h["name"] for h in program["headers"]]
    assert names[-3:] == ["labels[0]", "labels[1]", "labels[2]"]
    (stack,) = program["header_stacks"]
    assert stack["size"] == 3 and stack["header_type"] == "l_t"
    assert stack["header_ids"] == [names.index(f"labels[{i}]") for i in range(3)]
    lab = program["parsers"][0]["parse_states"][1]
    assert lab["parser_ops"][0]["parameters"] == [{"type": "stack", "value": "labels"}]
    assert lab["transition_key"] == [{"type": "field", "value": ["labels[0]", "bos"]}]
    ops = {p["op"] for a in program["actions"] for p in a["primitives"]}
    assert {"push", "pop", "add_header"} <= ops
    assert program["deparsers"][0]["order"] == ["h", "labels[0]", "labels[1]", "labels[2]"]


LOOKAHEAD = """
parser P(packet_in pk, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        m.r = pk.lookahead<bit<16>>();
        transition select(pk.lookahead<bit<4>>()) { 4: take; default: skip; }
    }
    state skip { pk.advance(32w8); transition take; }
    state take { pk.extract(hdr.h); verify(hdr.h.a != 0, error.NoMatch); transition accept; }
}
control V(inout hs hdr, inout meta_t m) { apply { } }
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in hs hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def test_lookahead_advance_verify(compile_text: CompileText) -> None:
    result = compile_text(HEADER + TYPES + LOOKAHEAD)
    assert result.status == 0, result.err
    start, skip, take = json.loads(result.json_path.read_text())["parsers"][0]["parse_states"]
    assert start["parser_ops"][0]["parameters"][1] == {"type": "lookahead", "value": [0, 16]}
    assert start["transition_key"] == [{"type": "lookahead", "value": [0, 4]}]
    assert skip["parser_ops"][0]["op"] == "advance"
    verify = take["parser_ops"][1]
    assert verify["op"] == "verify"
    assert verify["parameters"][1] == {"type": "hexstr", "value": "0x00000002"}


NAMED = """
parser P(packet_in pk, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr = hdr.h); transition accept; }
}
control V(inout hs hdr, inout meta_t m) { apply { } }
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    action fwd(bit<9> port, bit<32> q) { sm.egress_spec = port; m.q = q; }
    apply { fwd(q = 7, port = 3); }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs hdr, inout meta_t m) {
    apply {
        update_checksum(
            data = { hdr.h.a }, algo = HashAlgorithm.csum16, condition = true, checksum = hdr.h.b);
    }
}
control D(packet_out pk, in hs hdr) { apply { pk.emit(hdr = hdr.h); } }
V1Switch(vr = V(), p = P(), ig = I(), eg = E(), ck = C(), dep = D()) main;
"""


def test_named_arguments(compile_text: CompileText) -> None:
    result = compile_text(HEADER + TYPES + NAMED)
    assert result.status == 0, result.err
    program = json.loads(result.json_path.read_text())
    assert program["parsers"][0]["parse_states"][0]["parser_ops"][0]["op"] == "extract"
    table = program["pipelines"][0]["tables"][0]
    assert table["default_entry"]["action_data"] == ["0x0003", "0x00000007"]
    (cksum,) = program["checksums"]
    assert cksum["target"] == ["h", "b"] and cksum["if_cond"] is None
    mixed = NAMED.replace("fwd(q = 7, port = 3)", "fwd(3, q = 7)")
    result = compile_text(HEADER + TYPES + mixed)
    assert result.status == 1 and "either all arguments or none must be named" in result.err


DIGEST_TYPES = """
header h_t { bit<8> a; bit<16> b; }
struct hs { h_t h; }
struct learn_t { bit<8> a; bit<9> port; }
struct meta_t { bit<32> q; bool flag; bit<16> r; learn_t learn; }
"""
DIGEST = """
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    action learn() {
        m.learn.a = hdr.h.a;
        m.learn.port = sm.ingress_port;
        digest<learn_t>(1, m.learn);
    }
    table t { key = { hdr.h.a: exact; } actions = { learn; } }
    apply { t.apply(); }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
"""


def test_digest(compile_text: CompileText) -> None:
    result = compile_text(HEADER + DIGEST_TYPES + DIGEST + BLOCKS)
    assert result.status == 0, result.err
    program = json.loads(result.json_path.read_text())
    (learn_list,) = program["learn_lists"]
    assert learn_list["name"] == "learn_t"
    assert learn_list["elements"] == [
        {"type": "field", "value": ["scalars", "userMetadata.learn.a"]},
        {"type": "field", "value": ["scalars", "userMetadata.learn.port"]},
    ]
    prim = _action(program, "I.learn")["primitives"][-1]
    assert prim["op"] == "generate_digest"
    assert prim["parameters"][1] == {"type": "hexstr", "value": f"0x{learn_list['id']:08x}"}
    info = text_format.Parse(result.p4info_path.read_text(), p4i.P4Info())
    (digest,) = info.digests
    assert digest.preamble.name == "learn_t" and digest.preamble.id >> 24 == 0x17
    assert digest.type_spec.struct.name == "learn_t"
    members = info.type_info.structs["learn_t"].members
    assert [(m.name, m.type_spec.bitstring.bit.bitwidth) for m in members] == [
        ("a", 8),
        ("port", 9),
    ]


def test_clone(compile_text: CompileText) -> None:
    body = INLINE.replace("m.r); }", "m.r); clone(CloneType.I2E, 32w5); }")
    program, _ = _load(compile_text, body)
    prims = [p for a in program["actions"] for p in a["primitives"]]
    clone = next(p for p in prims if p["op"] == "clone_ingress_pkt_to_egress")
    assert clone["parameters"][0] == {"type": "hexstr", "value": "0x00000005"}


FUNCTIONS = """
bit<16> larger(in bit<16> a, in bit<16> b) { return a > b ? a : b; }
void bump(inout bit<32> x) { x = x + 1; }
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        m.r = larger(hdr.h.b, 16w100);
        bump(m.q);
    }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
"""


def test_functions_are_inlined(compile_text: CompileText) -> None:
    program, _ = _load(compile_text, FUNCTIONS)
    larger, bump = _action(program, "act")["primitives"]
    # A primitive's expression parameter wraps a whole expression (JSON_format.md).
    assert larger["parameters"][1]["type"] == "expression"
    value = larger["parameters"][1]["value"]["value"]
    assert value["op"] == "?" and value["cond"]["value"]["op"] == ">"
    assert value["left"] == {"type": "field", "value": ["h", "b"]}
    assert bump["parameters"][0] == {"type": "field", "value": ["scalars", "userMetadata.q"]}


def test_initial_entries_that_are_not_const(compile_text: CompileText) -> None:
    program, info = _load(compile_text, ENTRIES.replace("const entries", "entries"))
    assert len(program["pipelines"][0]["tables"][0]["entries"]) == 3
    assert not info.tables[0].is_const_table and info.tables[0].has_initial_entries


SUBCONTROL = """
control Count(inout bit<32> x, in bit<8> key, inout standard_metadata_t sm) {
    register<bit<32>, bit<32>>(4) seen;
    action hit(bit<32> v) { x = x + v; seen.write(0, x); }
    table t { key = { key: exact; } actions = { hit; } }
    apply { t.apply(); if (x > 100) { mark_to_drop(sm); } }
}
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    Count() first;
    Count() second;
    apply {
        first.apply(m.q, hdr.h.a, sm);
        second.apply(x = m.q, key = hdr.h.a, sm = sm);
    }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
"""


def test_controls_applied_by_controls_are_inlined(compile_text: CompileText) -> None:
    program, info = _load(compile_text, SUBCONTROL)
    ingress = program["pipelines"][0]
    tables = {t["name"]: t for t in ingress["tables"]}
    assert {"I.first.t", "I.second.t"} <= set(tables)
    assert ingress["init_table"] == "I.first.t"
    assert tables["I.first.t"]["key"][0]["target"] == ["h", "a"]
    hit = _action(program, "I.first.hit")["primitives"]
    assert hit[0]["parameters"][0] == {"type": "field", "value": ["scalars", "userMetadata.q"]}
    assert hit[1]["parameters"][0] == {"type": "register_array", "value": "I.first.seen"}
    assert {r["name"] for r in program["register_arrays"]} == {"I.first.seen", "I.second.seen"}
    assert {t.preamble.name for t in info.tables} == {"I.first.t", "I.second.t"}
    assert {t.preamble.alias for t in info.tables} == {"first.t", "second.t"}


SLICE_KEY = """
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    action set_q(bit<32> v) { m.q = v; }
    table t {
        key = { hdr.h.b[11:4]: exact @name("b_mid"); hdr.h.a & 0x0f: ternary; }
        actions = { set_q; NoAction; }
    }
    apply { t.apply(); }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
"""


def test_slice_key_is_computed_in_its_own_width(compile_text: CompileText) -> None:
    # As p4c's SimplifyKey: the slice is read into a field of its width, whose entries
    # are the slice's values, as P4Info's bitwidth says; no mask on the whole field.
    program, info = _load(compile_text, SLICE_KEY)
    [table] = [t for p in program["pipelines"] for t in p["tables"] if t["name"] == "I.t"]
    slice_key = table["key"][0]
    assert slice_key["name"] == "b_mid" and slice_key["mask"] is None
    assert slice_key["target"][0] == "scalars"
    [scalars] = [h for h in program["header_types"] if h["name"] == "scalars_0"]
    widths = {name: width for name, width, _ in scalars["fields"]}
    assert widths[slice_key["target"][1]] == 8
    [p4_table] = [t for t in info.tables if t.preamble.name == "I.t"]
    assert p4_table.match_fields[0].bitwidth == 8


DEFAULTS = """
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    action add(bit<32> va, bit<9> port) { m.q = va; sm.egress_spec = port; }
    table named_const { key = { hdr.h.a : exact; } actions = { add; }
                        const default_action = add(10, 3); }
    table named { key = { hdr.h.a : exact; } actions = { add; NoAction; }
                  default_action = NoAction(); }
    table implicit { key = { hdr.h.a : exact; } actions = { add; } }
    apply { named_const.apply(); named.apply(); implicit.apply(); }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
"""


def test_initial_default_action_as_p4c(compile_text: CompileText) -> None:
    """p4c gives a table whose program names a default action `initial_default_action`,
    each argument as many bytes as its parameter's width (p4c's
    default-action-arg-bmv2.p4info.txtpb); the implicit NoAction default gets one too
    (p4c's gauntlet_exit_combination_19-bmv2.p4info.txtpb: a table with no
    default_action has `initial_default_action { action_id: <NoAction> }`)."""
    _, info = _load(compile_text, DEFAULTS)
    tables = {tb.preamble.alias: tb for tb in info.tables}
    initial = tables["named_const"].initial_default_action
    assert initial.action_id == tables["named_const"].const_default_action_id
    assert [(a.param_id, a.value) for a in initial.arguments] == [
        (1, b"\x00\x00\x00\x0a"),
        (2, b"\x00\x03"),
    ]
    named = tables["named"]
    assert named.const_default_action_id == 0
    assert named.HasField("initial_default_action")
    assert not named.initial_default_action.arguments
    implicit = tables["implicit"].initial_default_action
    no_action = next(a.preamble.id for a in info.actions if a.preamble.name == "NoAction")
    assert implicit.action_id == no_action
    assert not implicit.arguments
