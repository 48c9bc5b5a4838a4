"""Programs p4c accepts that have no packet behaviour to test on our switch (issue #38):
the compiler takes them, as p4c does, and its output is checked here."""

import json

from compiler_helpers import CompileText

HEADER = "#include <core.p4>\n#include <v1model.p4>\n"
TYPES = "header h_t { bit<8> a; bit<8> b; }\nstruct hs { h_t h; }\nstruct meta_t { bit<8> x; }\n"
TAIL = """
parser P(packet_in p, out hs hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start { p.extract(hdr.h); transition accept; }
}
control V(inout hs hdr, inout meta_t m) { apply { } }
control E(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) { apply { } }
control C(inout hs hdr, inout meta_t m) { apply { } }
control D(packet_out p, in hs hdr) { apply { p.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
"""


def program(top: str, locals_: str, body: str) -> str:
    return (
        HEADER
        + TYPES
        + top
        + "control I(inout hs hdr, inout meta_t m, inout standard_metadata_t sm) {\n"
        + locals_
        + "    apply {\n"
        + body
        + "\n    }\n}\n"
        + TAIL
    )


def test_unknown_table_property_is_a_warning(compile_text: CompileText) -> None:
    locals_ = (
        "    table t { key = { hdr.h.a: exact; } actions = { NoAction; }\n"
        "        vendor_prop = 3; }\n"
    )
    r = compile_text(program("", locals_, "        t.apply();"))
    assert r.status == 0, r.err
    assert "prog.p4:8:9: warning: table property 'vendor_prop' is unknown here" in r.err


def test_user_extern_instances_and_method_calls(compile_text: CompileText) -> None:
    # p4c's BMv2 back end: an "extern_instances" entry of the type's name, and each
    # method call a primitive `_<type>_<method>` whose first parameter is the instance.
    top = (
        "extern MyExt { MyExt(bit<8> n); void f(in bit<8> x); void g(out bit<8> y); }\n"
        "MyExt(8w1) shared;\n"
    )
    locals_ = "    MyExt(8w3) e;\n    action a() { e.f(hdr.h.a); }\n"
    r = compile_text(program(top, locals_, "        a(); e.g(hdr.h.b); shared.f(8w7);"))
    assert r.status == 0, r.err
    assert "prog.p4:7:12: warning: extern 'MyExt' is not a v1model extern" in r.err
    assert "prog.p4:9:16: warning: extern 'MyExt'" in r.err
    j = json.loads(r.json_path.read_text())
    assert j["extern_instances"] == [
        {
            "name": "shared",
            "id": 0,
            "type": "MyExt",
            "attribute_values": [{"name": "n", "type": "hexstr", "value": "0x01"}],
        },
        {
            "name": "I.e",
            "id": 1,
            "type": "MyExt",
            "attribute_values": [{"name": "n", "type": "hexstr", "value": "0x03"}],
        },
    ]
    prims = [p for a in j["actions"] for p in a["primitives"] if p["op"].startswith("_MyExt")]
    assert {
        "op": "_MyExt_f",
        "parameters": [{"type": "extern", "value": "I.e"}, {"type": "field", "value": ["h", "a"]}],
    } in prims
    assert {
        "op": "_MyExt_g",
        "parameters": [{"type": "extern", "value": "I.e"}, {"type": "field", "value": ["h", "b"]}],
    } in prims
    assert {
        "op": "_MyExt_f",
        "parameters": [{"type": "extern", "value": "shared"}, {"type": "hexstr", "value": "0x07"}],
    } in prims
