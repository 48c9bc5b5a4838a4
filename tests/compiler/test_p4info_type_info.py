"""P4Info `type_info` for serializable enums that table keys and action parameters
have as types, as p4c writes it (its table-entries-ser-enum-bmv2.p4info.txtpb)."""

from __future__ import annotations

from compiler_helpers import CompileText
from finsy.proto import p4i
from google.protobuf import text_format

PROGRAM = """#include <core.p4>
#include <v1model.p4>
enum bit<8> MyEnum1B { MBR1 = 0, MBR2 = 0xff }
enum bit<16> MyEnum2B { MBR1 = 10, MBR2 = 0xab00 }
enum int<8> Signed { LOW = -2, HIGH = 3 }
enum bit<4> Unused { A = 1 }
header hdr { MyEnum1B f1; MyEnum2B f2; }
struct Header_t { hdr h; }
struct Meta_t { }
parser p(packet_in b, out Header_t h, inout Meta_t m, inout standard_metadata_t sm) {
    state start { b.extract(h.h); transition accept; }
}
control vrfy(inout Header_t h, inout Meta_t m) { apply { } }
control update(inout Header_t h, inout Meta_t m) { apply { } }
control egress(inout Header_t h, inout Meta_t m, inout standard_metadata_t sm) { apply { } }
control deparser(packet_out b, in Header_t h) { apply { b.emit(h.h); } }
control ingress(inout Header_t h, inout Meta_t m, inout standard_metadata_t sm) {
    action a(Signed s) { sm.egress_spec = (bit<9>)(bit<8>)(int<8>)s; }
    table t {
        key = { h.h.f1 : exact; h.h.f2 : ternary; }
        actions = { a; NoAction; }
    }
    apply { t.apply(); }
}
V1Switch(p(), vrfy(), ingress(), egress(), update(), deparser()) main;
"""


def test_serializable_enums_of_keys_and_parameters(compile_text: CompileText) -> None:
    result = compile_text(PROGRAM)
    assert result.status == 0, result.err
    info = text_format.Parse(result.p4info_path.read_text(), p4i.P4Info())
    enums = info.type_info.serializable_enums
    assert sorted(enums) == ["MyEnum1B", "MyEnum2B", "Signed"]
    assert enums["MyEnum1B"].underlying_type.bitwidth == 8
    assert [(m.name, m.value) for m in enums["MyEnum1B"].members] == [
        ("MBR1", b"\x00"),
        ("MBR2", b"\xff"),
    ]
    assert [(m.name, m.value) for m in enums["MyEnum2B"].members] == [
        ("MBR1", b"\x00\x0a"),
        ("MBR2", b"\xab\x00"),
    ]
    # A signed member is its two's complement in the underlying width.
    assert [(m.name, m.value) for m in enums["Signed"].members] == [
        ("LOW", b"\xfe"),
        ("HIGH", b"\x03"),
    ]
