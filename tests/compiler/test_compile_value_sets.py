"""Parser value sets: BMv2 JSON (`parse_vsets` and `parse_vset` transitions) and P4Info
(`value_sets`) in the shape p4c-bm2-ss writes them."""

import json

from compiler_helpers import CompileText
from finsy.proto import p4i
from google.protobuf import text_format
from test_p4src_ids import one_at_a_time

VALUE_SET_PREFIX = 0x03

PROGRAM = """#include <core.p4>
#include <v1model.p4>
header eth_t { bit<48> dst; bit<48> src; bit<16> type; }
header tag_t { bit<8> kind; bit<8> len; }
struct h_t { eth_t eth; tag_t tag; }
struct m_t { }
struct pair_t { bit<8> kind; bit<8> len; }
parser P(packet_in p, out h_t h, inout m_t m, inout standard_metadata_t s) {
    value_set<bit<16>>(4) custom_types;
    @name("tag_pairs") value_set<pair_t>(2) pairs;
    state start {
        p.extract(h.eth);
        transition select(h.eth.type) {
            0x0800: accept;
            custom_types: parse_tag;
            default: accept;
        }
    }
    state parse_tag {
        p.extract(h.tag);
        transition select(h.tag.kind, h.tag.len) {
            pairs: accept;
            default: reject;
        }
    }
}
control V(inout h_t h, inout m_t m) { apply { } }
control I(inout h_t h, inout m_t m, inout standard_metadata_t s) { apply { } }
control E(inout h_t h, inout m_t m, inout standard_metadata_t s) { apply { } }
control C(inout h_t h, inout m_t m) { apply { } }
control D(packet_out p, in h_t h) { apply { p.emit(h.eth); p.emit(h.tag); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def test_json_declares_the_sets_and_transitions_name_them(compile_text: CompileText) -> None:
    result = compile_text(PROGRAM)
    assert result.status == 0, result.err
    program = json.loads(result.json_path.read_text())
    assert program["parse_vsets"] == [
        {"name": "P.custom_types", "id": 0, "compressed_bitwidth": 16, "max_size": 4},
        {"name": "P.tag_pairs", "id": 1, "compressed_bitwidth": 16, "max_size": 2},
    ]
    states = {s["name"]: s for s in program["parsers"][0]["parse_states"]}
    assert states["start"]["transitions"][1] == {
        "type": "parse_vset",
        "value": "P.custom_types",
        "mask": None,
        "next_state": "parse_tag",
    }
    # In program order: the set is tried before the default.
    kinds = [t["type"] for t in states["parse_tag"]["transitions"]]
    assert kinds == ["parse_vset", "default"]
    assert [k["value"] for k in states["parse_tag"]["transition_key"]] == [
        ["tag", "kind"],
        ["tag", "len"],
    ]


def test_p4info_lists_each_set_with_its_match_fields(compile_text: CompileText) -> None:
    result = compile_text(PROGRAM)
    assert result.status == 0, result.err
    info = text_format.Parse(result.p4info_path.read_text(), p4i.P4Info())
    sets = {v.preamble.name: v for v in info.value_sets}
    bits = sets["P.custom_types"]
    assert bits.preamble.id == VALUE_SET_PREFIX << 24 | one_at_a_time("P.custom_types") & 0xFFFFFF
    assert bits.preamble.alias == "custom_types"
    assert bits.size == 4
    assert [(m.id, m.name, m.bitwidth, m.match_type) for m in bits.match] == [
        (1, "", 16, p4i.MatchField.EXACT)
    ]
    pairs = sets["P.tag_pairs"]
    assert pairs.size == 2
    assert [(m.id, m.name, m.bitwidth) for m in pairs.match] == [(1, "kind", 8), (2, "len", 8)]


def test_a_set_of_nested_structs_is_flattened(compile_text: CompileText) -> None:
    # A struct field that is a struct gives its own fields, in order, each a key of
    # the select and a match field of P4Info named by its path.
    program = PROGRAM.replace(
        "struct pair_t { bit<8> kind; bit<8> len; }",
        "struct kind_t { bit<4> hi; @match(ternary) bit<4> lo; }\n"
        "struct pair_t { kind_t kind; bit<8> len; }",
    ).replace(
        "select(h.tag.kind, h.tag.len)", "select(h.tag.kind[7:4], h.tag.kind[3:0], h.tag.len)"
    )
    result = compile_text(program)
    assert result.status == 0, result.err
    j = json.loads(result.json_path.read_text())
    assert j["parse_vsets"][1] == {
        "name": "P.tag_pairs",
        "id": 1,
        "compressed_bitwidth": 16,
        "max_size": 2,
    }
    tag = next(s for s in j["parsers"][0]["parse_states"] if s["name"] == "parse_tag")
    assert len(tag["transition_key"]) == 3
    info = text_format.Parse(result.p4info_path.read_text(), p4i.P4Info())
    pairs = next(v for v in info.value_sets if v.preamble.name == "P.tag_pairs")
    assert [(m.id, m.name, m.bitwidth, m.match_type) for m in pairs.match] == [
        (1, "kind.hi", 4, p4i.MatchField.EXACT),
        (2, "kind.lo", 4, p4i.MatchField.TERNARY),
        (3, "len", 8, p4i.MatchField.EXACT),
    ]
