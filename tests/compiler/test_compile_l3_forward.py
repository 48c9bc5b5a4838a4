"""Compile p4src/l3_forward.p4 through the CLI and check the BMv2 JSON and P4Info."""

import json
from pathlib import Path

from finsy.proto import p4i
from google.protobuf import text_format

from p4aqm.compiler.cli import main
from p4aqm.compiler.ids import Prefix, jenkins_one_at_a_time

L3_FORWARD = Path(__file__).resolve().parents[2] / "p4src" / "l3_forward.p4"


def _compile(tmp_path: Path) -> tuple[dict, p4i.P4Info]:
    out = tmp_path / "l3.json"
    info_path = tmp_path / "l3.p4info.txtpb"
    assert main([str(L3_FORWARD), "-o", str(out), "--p4runtime-files", str(info_path)]) == 0
    info = text_format.Parse(info_path.read_text(), p4i.P4Info())
    return json.loads(out.read_text()), info


def _by_name(items: list[dict], name: str) -> dict:
    return next(i for i in items if i["name"] == name)


def test_json_shape(tmp_path: Path) -> None:
    program, _ = _compile(tmp_path)
    assert program["__meta__"]["version"] == [2, 23]
    assert [h["name"] for h in program["headers"]] == [
        "scalars",
        "standard_metadata",
        "ethernet",
        "ipv4",
    ]
    ipv4_t = _by_name(program["header_types"], "ipv4_t")
    assert ipv4_t["fields"][0] == ["version", 4, False]
    assert sum(w for _, w, _ in ipv4_t["fields"]) == 160
    sm = _by_name(program["header_types"], "standard_metadata")
    assert sum(w for _, w, _ in sm["fields"]) % 8 == 0
    assert ["parser_error", 32, False] in sm["fields"]
    assert program["errors"][0] == ["NoError", 0]


def test_parser_selects_on_ether_type(tmp_path: Path) -> None:
    program, _ = _compile(tmp_path)
    start = _by_name(program["parsers"][0]["parse_states"], "start")
    assert start["parser_ops"] == [
        {"parameters": [{"type": "regular", "value": "ethernet"}], "op": "extract"}
    ]
    assert start["transition_key"] == [{"type": "field", "value": ["ethernet", "ether_type"]}]
    assert start["transitions"][0] == {
        "type": "hexstr",
        "value": "0x0800",
        "mask": None,
        "next_state": "parse_ipv4",
    }
    assert start["transitions"][1]["type"] == "default"
    assert start["transitions"][1]["next_state"] is None


def test_actions_and_lpm_table(tmp_path: Path) -> None:
    program, _ = _compile(tmp_path)
    fwd = _by_name(program["actions"], "MyIngress.ipv4_forward")
    assert fwd["runtime_data"] == [
        {"name": "dst_mac", "bitwidth": 48},
        {"name": "src_mac", "bitwidth": 48},
        {"name": "port", "bitwidth": 9},
    ]
    first = fwd["primitives"][0]
    assert first["op"] == "assign"
    assert first["parameters"] == [
        {"type": "field", "value": ["standard_metadata", "egress_spec"]},
        {"type": "runtime_data", "value": 2},
    ]
    # The expression parameter wraps the expression once more (JSON_format.md, actions).
    ttl = fwd["primitives"][3]["parameters"][1]["value"]["value"]
    assert ttl["op"] == "&" and ttl["right"] == {"type": "hexstr", "value": "0xff"}
    drop = _by_name(program["actions"], "MyIngress.drop")
    assert drop["primitives"] == [
        {"op": "mark_to_drop", "parameters": [{"type": "header", "value": "standard_metadata"}]}
    ]

    ingress = _by_name(program["pipelines"], "ingress")
    table = _by_name(ingress["tables"], "MyIngress.ipv4_lpm")
    assert table["key"] == [
        {
            "match_type": "lpm",
            "name": "hdr.ipv4.dst_addr",
            "target": ["ipv4", "dst_addr"],
            "mask": None,
        }
    ]
    assert table["match_type"] == "lpm"
    assert table["max_size"] == 1024
    assert table["actions"] == ["MyIngress.ipv4_forward", "MyIngress.drop"]
    assert table["default_entry"]["action_id"] == drop["id"]
    assert table["default_entry"]["action_const"] is False

    cond = _by_name(ingress["conditionals"], ingress["init_table"])
    assert cond["expression"]["value"]["op"] == "and"
    assert cond["true_next"] == "MyIngress.ipv4_lpm"
    else_table = _by_name(ingress["tables"], cond["false_next"])
    assert else_table["actions"] == ["MyIngress.drop"]
    assert else_table["default_entry"]["action_const"] is True


def test_checksum_and_aliases(tmp_path: Path) -> None:
    program, _ = _compile(tmp_path)
    (cksum,) = program["checksums"]
    assert cksum["target"] == ["ipv4", "hdr_checksum"]
    assert cksum["update"] is True and cksum["verify"] is False
    calc = _by_name(program["calculations"], cksum["calculation"])
    assert calc["algo"] == "csum16"
    assert len(calc["input"]) == 12
    assert calc["input"][-1] == {"type": "field", "value": ["ipv4", "dst_addr"]}
    assert cksum["if_cond"]["value"]["right"] == {"type": "field", "value": ["ipv4", "$valid$"]}
    aliases = dict((a, tuple(t)) for a, t in program["field_aliases"])
    assert aliases["queueing_metadata.enq_qdepth"] == ("standard_metadata", "enq_qdepth")
    assert aliases["intrinsic_metadata.ingress_global_timestamp"] == (
        "standard_metadata",
        "ingress_global_timestamp",
    )
    assert program["deparsers"][0]["order"] == ["ethernet", "ipv4"]


def test_p4info_names_and_ids_match_json(tmp_path: Path) -> None:
    program, info = _compile(tmp_path)
    assert info.pkg_info.arch == "v1model"
    (table,) = info.tables
    assert table.preamble.name == "MyIngress.ipv4_lpm"
    assert table.preamble.alias == "ipv4_lpm"
    expected = (Prefix.TABLE << 24) | (jenkins_one_at_a_time(b"MyIngress.ipv4_lpm") & 0xFFFFFF)
    assert table.preamble.id == expected
    assert table.size == 1024
    (mf,) = table.match_fields
    assert (mf.id, mf.name, mf.bitwidth, mf.match_type) == (
        1,
        "hdr.ipv4.dst_addr",
        32,
        p4i.MatchField.LPM,
    )
    actions = {a.preamble.name: a for a in info.actions}
    assert actions["MyIngress.drop"].preamble.id == 25652968
    assert [p.name for p in actions["MyIngress.ipv4_forward"].params] == [
        "dst_mac",
        "src_mac",
        "port",
    ]
    assert [r.id for r in table.action_refs] == [
        actions["MyIngress.ipv4_forward"].preamble.id,
        actions["MyIngress.drop"].preamble.id,
    ]
    json_tables = {t["name"] for p in program["pipelines"] for t in p["tables"]}
    json_actions = {a["name"] for a in program["actions"]}
    assert {t.preamble.name for t in info.tables} <= json_tables
    assert set(actions) <= json_actions


def test_p4info_binary_and_json_formats(tmp_path: Path) -> None:
    binary, js = tmp_path / "p.bin", tmp_path / "p.json"
    assert (
        main(
            [str(L3_FORWARD), "-o", str(tmp_path / "o.json"), "--p4runtime-files", f"{binary},{js}"]
        )
        == 0
    )
    info = p4i.P4Info.FromString(binary.read_bytes())
    assert info.tables[0].preamble.name == "MyIngress.ipv4_lpm"
    assert json.loads(js.read_text())["tables"][0]["preamble"]["name"] == "MyIngress.ipv4_lpm"


def test_p4aqm_dispatcher(tmp_path: Path) -> None:
    from p4aqm.cli import main as p4aqm_main

    assert p4aqm_main(["compile", str(L3_FORWARD), "-o", str(tmp_path / "x.json")]) == 0
    assert json.loads((tmp_path / "x.json").read_text())["pipelines"]


def test_format_flag_overrides_the_extension(tmp_path: Path) -> None:
    out = tmp_path / "p4info.txt"
    args = [str(L3_FORWARD), "-o", str(tmp_path / "o.json"), "--p4runtime-files", str(out)]
    assert main([*args, "--p4runtime-format", "json"]) == 0
    assert json.loads(out.read_text())["pkgInfo"]["arch"] == "v1model"


def test_include_dirs_and_defines_on_the_command_line(tmp_path: Path) -> None:
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "sizes.p4").write_text("#define LPM_SIZE 512\n")
    src = tmp_path / "sized.p4"
    src.write_text(
        """#include <core.p4>
#include <v1model.p4>
#include <sizes.p4>
header h_t { bit<8> a; }
struct hs { h_t h; }
struct meta_t { }
parser P(packet_in pk, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control V(inout hs hdr, inout meta_t m) { apply { } }
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    table t { key = { hdr.h.a: exact; } actions = { NoAction; } size = LPM_SIZE * SCALE; }
    apply { t.apply(); }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in hs hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""
    )
    out = tmp_path / "sized.json"
    assert main([str(src), "-o", str(out), "-I", str(inc), "-D", "SCALE=2"]) == 0
    table = json.loads(out.read_text())["pipelines"][0]["tables"][0]
    assert table["max_size"] == 1024
    assert main([str(src), "-o", str(out), "-I", str(inc), "-D", "SCALE=3"]) == 0
    assert json.loads(out.read_text())["pipelines"][0]["tables"][0]["max_size"] == 1536
