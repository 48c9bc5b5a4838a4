"""v1model action profiles and selectors (`implementation = action_profile(...)`,
`action_selector(...)`, or a declared instance): BMv2's indirect tables and pipeline
"action_profiles", and P4Info's action_profiles, as p4c's bmv2 back end emits them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from compiler_helpers import CompileText
from finsy.proto import p4i
from google.protobuf import text_format

from p4aqm.compiler.cli import main

# p4c's testdata/p4_16_samples/action_profile-bmv2.p4 (`smeta.drop = 1` is
# `mark_to_drop(smeta)`: our v1model.p4 has no `drop` field; the P4Info is the same).
REFERENCE = """#include <core.p4>
#include <v1model.p4>
struct H { };
struct M { bit<32> hash1; }
parser ParserI(packet_in pk, out H hdr, inout M meta, inout standard_metadata_t smeta) {
    state start { transition accept; }
}
action empty() { }
control IngressI(inout H hdr, inout M meta, inout standard_metadata_t smeta) {
    action drop() { mark_to_drop(smeta); }
    table indirect {
        key = { }
        actions = { drop; NoAction; }
        const default_action = NoAction();
        @name("ap") implementation = action_profile(32w128);
    }
    table indirect_ws {
        key = { meta.hash1 : selector; }
        actions = { drop; NoAction; }
        const default_action = NoAction();
        @name("ap_ws") implementation = action_selector(HashAlgorithm.identity, 32w1024, 32w10);
    }
    apply {
        indirect.apply();
        indirect_ws.apply();
    }
};
control EgressI(inout H hdr, inout M meta, inout standard_metadata_t smeta) { apply { } };
control DeparserI(packet_out pk, in H hdr) { apply { } }
control VerifyChecksumI(inout H hdr, inout M meta) { apply { } }
control ComputeChecksumI(inout H hdr, inout M meta) { apply { } }
V1Switch(ParserI(), VerifyChecksumI(), IngressI(), EgressI(),
         ComputeChecksumI(), DeparserI()) main;
"""

# p4c's action_profile-bmv2.p4.p4info.txt, its tables and action profiles.
REFERENCE_P4INFO = """
tables {
  preamble { id: 46872340 name: "IngressI.indirect" alias: "indirect" }
  action_refs { id: 23455883 } action_refs { id: 21257015 }
  const_default_action_id: 21257015 initial_default_action { action_id: 21257015 }
  implementation_id: 294074782 size: 1024
}
tables {
  preamble { id: 38116258 name: "IngressI.indirect_ws" alias: "indirect_ws" }
  action_refs { id: 23455883 } action_refs { id: 21257015 }
  const_default_action_id: 21257015 initial_default_action { action_id: 21257015 }
  implementation_id: 300324846 size: 1024
}
action_profiles {
  preamble { id: 294074782 name: "ap" alias: "ap" }
  table_ids: 46872340 size: 128
}
action_profiles {
  preamble { id: 300324846 name: "ap_ws" alias: "ap_ws" }
  table_ids: 38116258 with_selector: true size: 1024
}
"""

PROGRAM = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<16> b; }
struct hs { h_t h; }
struct meta_t { bit<8> x; bit<32> n; }
parser P(packet_in pk, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control V(inout hs hdr, inout meta_t m) { apply { } }
TOP
control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    action fwd(bit<9> port) { sm.egress_spec = port; }
LOCALS
    apply {
APPLY
    }
}
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {
ELOCALS
    apply {
EAPPLY
    }
}
control C(inout hs hdr, inout meta_t m) { apply { } }
control D(packet_out pk, in hs hdr) { apply { pk.emit(hdr); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""

MARK = "@@"


def program(locals_: str, apply: str, top: str = "", elocals: str = "", eapply: str = "") -> str:
    return (
        PROGRAM.replace("ELOCALS", elocals)
        .replace("EAPPLY", eapply)
        .replace("TOP", top)
        .replace("LOCALS", locals_)
        .replace("APPLY", apply)
    )


def _compiled(compile_text: CompileText, text: str) -> tuple[dict, p4i.P4Info]:
    result = compile_text(text)
    assert result.status == 0, result.err
    info = text_format.Parse(result.p4info_path.read_text(), p4i.P4Info())
    return json.loads(result.json_path.read_text()), info


def _tables(bmv2: dict) -> dict[str, dict]:
    return {tb["name"]: tb for p in bmv2["pipelines"] for tb in p["tables"]}


def _error_at(compile_text: CompileText, marked: str) -> str:
    """The message of the error `marked` must give, at the position of its `@@`."""
    before = marked[: marked.index(MARK)]
    line, col = before.count("\n") + 1, len(before) - before.rfind("\n")
    result = compile_text(marked.replace(MARK, "", 1))
    assert result.status == 1, result.err
    assert "Traceback" not in result.err
    m = re.match(r"^.*prog\.p4:(\d+):(\d+): error: (.+)$", result.err.split("\n")[0])
    assert m, result.err
    assert (int(m[1]), int(m[2])) == (line, col), result.err
    return m[3]


def test_p4c_reference_json(compile_text: CompileText) -> None:
    bmv2, _ = _compiled(compile_text, REFERENCE)
    ingress = bmv2["pipelines"][0]
    tables = _tables(bmv2)
    plain, ws = tables["IngressI.indirect"], tables["IngressI.indirect_ws"]
    assert (plain["type"], plain["action_profile"]) == ("indirect", "ap")
    assert (ws["type"], ws["action_profile"]) == ("indirect_ws", "ap_ws")
    # The selector key is the selector's input, not a key of the table; and, as p4c,
    # no default entry for a table with an action profile.
    assert ws["key"] == [] and ws["match_type"] == "exact"
    assert "default_entry" not in plain and "default_entry" not in ws
    profiles = {p["name"]: p for p in ingress["action_profiles"]}
    assert sorted(p["id"] for p in profiles.values()) == [0, 1]
    assert {n: {k: v for k, v in p.items() if k != "id"} for n, p in profiles.items()} == {
        "ap": {"name": "ap", "max_size": 128},
        "ap_ws": {
            "name": "ap_ws",
            "max_size": 1024,
            "selector": {
                "algo": "identity",
                "input": [{"type": "field", "value": ["scalars", "userMetadata.hash1"]}],
            },
        },
    }
    assert bmv2["pipelines"][1]["action_profiles"] == []


def test_p4c_reference_p4info(compile_text: CompileText) -> None:
    """Names, IDs, table_ids and implementation_ids equal to p4c's own output."""
    _, info = _compiled(compile_text, REFERENCE)
    want = text_format.Parse(REFERENCE_P4INFO, p4i.P4Info())
    by_name = {tb.preamble.name: tb for tb in info.tables}
    for tb in want.tables:
        assert by_name[tb.preamble.name] == tb
    profiles = {p.preamble.name: p for p in info.action_profiles}
    assert len(profiles) == 2
    for p in want.action_profiles:
        assert profiles[p.preamble.name] == p


SELECTOR_KEYS = """
    table t {
        key = { m.x : selector; hdr.h.a : lpm; hdr.h.b : selector; }
        actions = { fwd; }
        @name(".sel") @max_group_size(16) @tag("ecmp")
        implementation = action_selector(HashAlgorithm.crc16, 32w64, 32w14);
    }
"""


def test_selector_keys_are_the_selector_input(compile_text: CompileText) -> None:
    bmv2, info = _compiled(compile_text, program(SELECTOR_KEYS, "t.apply();"))
    table = _tables(bmv2)["I.t"]
    assert [k["target"] for k in table["key"]] == [["h", "a"]]
    assert table["match_type"] == "lpm"
    assert table["action_profile"] == "sel"
    (profile,) = bmv2["pipelines"][0]["action_profiles"]
    assert profile["selector"] == {
        "algo": "crc16",
        "input": [
            {"type": "field", "value": ["scalars", "userMetadata.x"]},
            {"type": "field", "value": ["h", "b"]},
        ],
    }
    (mf,) = info.tables[0].match_fields
    # Field ids count the selector keys too, as p4c allocates them.
    assert (mf.name, mf.id, mf.match_type) == ("hdr.h.a", 2, p4i.MatchField.LPM)
    (ap,) = info.action_profiles
    assert (ap.preamble.name, ap.with_selector, ap.size, ap.max_group_size) == (
        "sel",
        True,
        64,
        16,
    )
    assert list(ap.preamble.annotations) == ['@tag("ecmp")']
    assert info.tables[0].implementation_id == ap.preamble.id


def test_selector_keys_without_implementation_are_left_out(compile_text: CompileText) -> None:
    # As p4c compiles its issue1560-bmv2: no selector to feed, so no key either.
    locals_ = "    table t { key = { hdr.h.a : exact; m.x : selector; } actions = { fwd; } }\n"
    bmv2, info = _compiled(compile_text, program(locals_, "t.apply();"))
    table = _tables(bmv2)["I.t"]
    assert [k["target"] for k in table["key"]] == [["h", "a"]]
    assert table["type"] == "simple"
    assert [mf.name for mf in info.tables[0].match_fields] == ["hdr.h.a"]


SHARED = """
    @max_group_size(4) action_selector(HashAlgorithm.crc32, 32w128, 32w16) sel;
    table first {
        key = { hdr.h.a : exact; hdr.h.b : selector; }
        actions = { fwd; }
        implementation = sel;
    }
    table second {
        key = { m.x : ternary; hdr.h.b : selector; }
        actions = { fwd; }
        default_action = fwd(9w1);
        implementation = sel;
    }
"""
TOP_PROFILE = "@id(7) @max_group_size(4) action_profile(32w32) prof;"
EGRESS_TABLE = (
    "    table et { key = { hdr.h.a : exact; } actions = { NoAction; } implementation = prof; }"
)


def test_declared_instances_shared_by_tables(compile_text: CompileText) -> None:
    text = program(
        SHARED, "first.apply(); second.apply();", TOP_PROFILE, EGRESS_TABLE, "et.apply();"
    )
    bmv2, info = _compiled(compile_text, text)
    ingress, egress = bmv2["pipelines"]
    # Emitted once, in the pipeline of the tables using it; ids count over the program.
    assert [p["name"] for p in ingress["action_profiles"]] == ["I.sel"]
    assert [p["name"] for p in egress["action_profiles"]] == ["prof"]
    assert ingress["action_profiles"][0]["max_size"] == 128
    assert ingress["action_profiles"][0]["selector"]["input"] == [
        {"type": "field", "value": ["h", "b"]}
    ]
    assert egress["action_profiles"][0] == {"name": "prof", "id": 1, "max_size": 32}
    tables = _tables(bmv2)
    assert {tables[n]["action_profile"] for n in ("I.first", "I.second")} == {"I.sel"}
    assert tables["E.et"]["type"] == "indirect"
    assert "default_entry" not in tables["I.second"]

    table_ids = {tb.preamble.name: tb.preamble.id for tb in info.tables}
    profiles = {p.preamble.name: p for p in info.action_profiles}
    sel, prof = profiles["I.sel"], profiles["prof"]
    assert list(sel.table_ids) == [table_ids["I.first"], table_ids["I.second"]]
    assert (sel.max_group_size, sel.preamble.alias) == (4, "sel")
    # @id gives the id; @max_group_size means nothing without a selector.
    assert prof.preamble.id == 0x11000007
    assert (prof.with_selector, prof.max_group_size, list(prof.table_ids)) == (
        False,
        0,
        [table_ids["E.et"]],
    )
    impl = {tb.preamble.name: tb.implementation_id for tb in info.tables}
    assert impl == {"I.first": sel.preamble.id, "I.second": sel.preamble.id, "E.et": 0x11000007}
    # The default action stays in P4Info.
    second = next(tb for tb in info.tables if tb.preamble.name == "I.second")
    assert [mf.name for mf in second.match_fields] == ["m.x"]


def test_anonymous_profiles_without_p4info(tmp_path: Path) -> None:
    """Without @name, p4c names the profile with refMap->newName("action_profile"):
    "action_profile" itself names v1model's extern, so action_profile_0, _1, ..."""
    locals_ = (
        "    table a { key = { hdr.h.a : exact; } actions = { fwd; }"
        " implementation = action_profile(32w16); }\n"
        "    table b { key = { hdr.h.a : exact; } actions = { fwd; }"
        " implementation = action_profile(32w8); }\n"
    )
    src = tmp_path / "anon.p4"
    src.write_text(program(locals_, "a.apply(); b.apply();"))
    out = tmp_path / "anon.json"
    assert main([str(src), "-o", str(out)]) == 0
    bmv2 = json.loads(out.read_text())
    names = {p["name"] for p in bmv2["pipelines"][0]["action_profiles"]}
    assert names == {"action_profile_0", "action_profile_1"}
    tables = _tables(bmv2)
    assert {tables["I.a"]["action_profile"], tables["I.b"]["action_profile"]} == names


def test_anonymous_profile_with_p4info_is_an_error(compile_text: CompileText) -> None:
    locals_ = (
        "    table t { key = { hdr.h.a : exact; } actions = { fwd; }\n"
        "        @@implementation = action_profile(32w16); }\n"
    )
    message = _error_at(compile_text, program(locals_, "t.apply();"))
    assert message == (
        "Table 'I.t' has an anonymous table property 'implementation' with no name "
        "annotation, which is not supported by P4Runtime"
    )


ERRORS = {
    "selector key with an action profile": (
        "    table t { key = { @@m.x : selector; } actions = { fwd; }\n"
        '        @name("p") implementation = action_profile(32w4); }\n',
        "key 'm.x' of table 't' is matched by 'selector'",
    ),
    "const entries": (
        "    table t { key = { hdr.h.a : exact; } actions = { fwd; }\n"
        '        @name("p") implementation = action_profile(32w4);\n'
        "        const @@entries = { 1 : fwd(9w1); } }\n",
        "const entries in a table with an action profile: BMv2 cannot hold them",
    ),
    "non-constant inline size": (
        '    table t { key = { hdr.h.a : exact; } actions = { fwd; } @name("p")\n'
        "        implementation = action_profile(@@m.n); }\n",
        "an action profile size must be a compile-time constant",
    ),
    "non-constant declared size": (
        "    action_selector(HashAlgorithm.crc16, @@m.n, 32w8) s;\n"
        "    table t { key = { hdr.h.a : selector; } actions = { fwd; } implementation = s; }\n",
        "an action selector size must be a compile-time constant",
    ),
    "not a profile": (
        "    counter(32w4, CounterType.packets) c;\n"
        "    table t { key = { hdr.h.a : exact; } actions = { fwd; } implementation = @@c; }\n",
        "'implementation' needs an action_profile or action_selector",
    ),
    # Tables are lowered last to first: the error is at the first table applied.
    "name used twice": (
        '    table t { actions = { fwd; } @name("p") @@implementation = action_profile(32w4); }\n'
        '    table u { actions = { fwd; } @name("p") implementation = action_profile(32w4); }\n',
        "action profile name 'p' is used twice",
    ),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(compile_text: CompileText, case: str) -> None:
    locals_, message = ERRORS[case]
    applies = "t.apply();" + (" u.apply();" if "table u" in locals_ else "")
    assert _error_at(compile_text, program(locals_, applies)).startswith(message)


def test_shared_selector_with_other_keys_is_an_error(compile_text: CompileText) -> None:
    locals_ = (
        "    action_selector(HashAlgorithm.crc16, 32w64, 32w8) s;\n"
        "    table t { key = { hdr.h.a : selector; hdr.h.b : selector; } actions = { fwd; }\n"
        "        implementation = s; }\n"
        "    table u { key = { hdr.h.b : selector; hdr.h.a : selector; } actions = { fwd; }\n"
        "        @@implementation = s; }\n"
    )
    # Tables are lowered last to first: the error is at the second table lowered.
    text = program(locals_, "u.apply(); t.apply();")
    assert _error_at(compile_text, text) == (
        "action selector 'I.s' is shared by tables 'I.t' and 'I.u' with different selector "
        "keys: they must be the same, in the same order"
    )


def test_algorithm_must_be_a_hash_algorithm(compile_text: CompileText) -> None:
    locals_ = (
        '    table t { key = { hdr.h.a : selector; } actions = { fwd; } @name("s")\n'
        "        implementation = action_selector(@@8w1, 32w64, 32w8); }\n"
    )
    assert "HashAlgorithm" in _error_at(compile_text, program(locals_, "t.apply();"))


def test_unused_declared_profiles_as_p4c(compile_text: CompileText) -> None:
    """p4c's action_selector_unused-bmv2: P4Info lists a profile no table uses (p4c's
    reference: IngressI.as, id 291652621, with_selector, size 1024, no table_ids); the
    JSON has an unused action_profile but not a selector, whose input no table gives."""
    source = REFERENCE.replace(
        "    table indirect {",
        "    action_selector(HashAlgorithm.identity, 32w1024, 32w10) as;\n"
        "    action_profile(32w64) spare;\n"
        "    table indirect {",
    )
    bmv2, info = _compiled(compile_text, source)
    profiles = {p.preamble.name: p for p in info.action_profiles}
    want = text_format.Parse(
        'preamble { id: 291652621 name: "IngressI.as" alias: "as" } with_selector: true size: 1024',
        p4i.ActionProfile(),
    )
    assert profiles["IngressI.as"] == want
    assert not profiles["IngressI.spare"].with_selector
    assert list(profiles["IngressI.spare"].table_ids) == []
    names = [p["name"] for p in bmv2["pipelines"][0]["action_profiles"]]
    assert sorted(names) == ["IngressI.spare", "ap", "ap_ws"]
