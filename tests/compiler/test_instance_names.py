"""A control instance's @name names the path of the tables and actions inlined from
it, as in p4c's output for gauntlet_variable_shadowing-bmv2 (`@name("c") compute()
c_0;` gives the table `ingress.c.t`)."""

from __future__ import annotations

import json

from compiler_helpers import CompileText
from finsy.proto import p4i
from google.protobuf import text_format

PROGRAM = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; }
struct H { h_t h; }
struct M { }
parser P(packet_in pk, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control Sub(inout h_t h) {
    action a() { h.a = 1; }
    table t { key = { h.a : exact; } actions = { a; NoAction; } }
    apply { t.apply(); }
}
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    INSTANCE
    apply { c_0.apply(hdr.h); }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply { } }
control V(inout H hdr, inout M m) { apply { } }
control C(inout H hdr, inout M m) { apply { } }
control D(packet_out pk, in H hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def _names(compile_text: CompileText, instance: str) -> tuple[set[str], set[str]]:
    result = compile_text(PROGRAM.replace("INSTANCE", instance))
    assert result.status == 0, result.err
    bmv2 = json.loads(result.json_path.read_text())
    json_tables = {t["name"] for p in bmv2["pipelines"] for t in p["tables"]}
    info = text_format.Parse(result.p4info_path.read_text(), p4i.P4Info())
    info_names = {t.preamble.name for t in info.tables} | {a.preamble.name for a in info.actions}
    return json_tables, info_names


def test_the_instance_name_without_annotation(compile_text: CompileText) -> None:
    json_tables, info_names = _names(compile_text, "Sub() c_0;")
    assert "I.c_0.t" in json_tables
    assert {"I.c_0.t", "I.c_0.a"} <= info_names


def test_the_annotated_instance_name(compile_text: CompileText) -> None:
    json_tables, info_names = _names(compile_text, '@name("c") Sub() c_0;')
    assert "I.c.t" in json_tables
    assert {"I.c.t", "I.c.a"} <= info_names
