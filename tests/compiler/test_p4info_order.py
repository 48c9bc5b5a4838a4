"""P4Info lists tables and actions in p4c's order: declaration order, the global
actions first, then ingress's objects, then egress's, whatever order the source
declares the controls in and whatever order the tables are applied in (p4c's
flowlet_switching-bmv2 declares egress first; its P4Info lists ingress first)."""

from __future__ import annotations

from compiler_helpers import CompileText
from finsy.proto import p4i
from google.protobuf import text_format

PROGRAM = """#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct H { h_t h; }
struct M { }
action global_drop(inout standard_metadata_t sm) { mark_to_drop(sm); }
parser P(packet_in pk, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.h); transition accept; }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) {
    action e_set() { hdr.h.b = 1; }
    table e_t { key = { hdr.h.a : exact; } actions = { e_set; } }
    apply { e_t.apply(); }
}
control Sub(inout h_t h) {
    action s_set() { h.b = 2; }
    table s_t { key = { h.a : exact; } actions = { s_set; } }
    apply { s_t.apply(); }
}
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    action zeta() { hdr.h.b = 3; }
    action alpha() { hdr.h.b = 4; }
    table z_t { key = { hdr.h.a : exact; } actions = { zeta; global_drop(sm); NO_ACTION } }
    Sub() sub;
    table a_t { key = { hdr.h.b : exact; } actions = { alpha; } }
    apply { a_t.apply(); sub.apply(hdr.h); z_t.apply(); }
}
control V(inout H hdr, inout M m) { apply { } }
control C(inout H hdr, inout M m) { apply { } }
control D(packet_out pk, in H hdr) { apply { pk.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def _order(compile_text: CompileText, program: str) -> tuple[list[str], list[str]]:
    result = compile_text(program)
    assert result.status == 0, result.err
    info = text_format.Parse(result.p4info_path.read_text(), p4i.P4Info())
    return [t.preamble.name for t in info.tables], [a.preamble.name for a in info.actions]


def test_declaration_order_ingress_before_egress(compile_text: CompileText) -> None:
    tables, actions = _order(compile_text, PROGRAM.replace("NO_ACTION", "NoAction;"))
    assert tables == ["I.z_t", "I.sub.s_t", "I.a_t", "E.e_t"]
    # A table names NoAction: core.p4 declares it before every other action.
    assert actions == ["NoAction", "global_drop", "I.zeta", "I.alpha", "I.sub.s_set", "E.e_set"]


def test_an_implicit_no_action_follows_the_global_actions(compile_text: CompileText) -> None:
    _, actions = _order(compile_text, PROGRAM.replace("NO_ACTION", ""))
    assert actions[:2] == ["global_drop", "NoAction"]
