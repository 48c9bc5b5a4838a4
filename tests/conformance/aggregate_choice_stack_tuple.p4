// `?:` choosing between header stacks and between tuples (spec: the conditional
// operator takes operands of any one type). A chosen stack is copied element by
// element with each element's validity, so a shorter stack leaves the rest invalid.

#include <core.p4>
#include <v1model.p4>
header h_t { bit<8> a; bit<8> b; }
struct H { h_t[2] s1; h_t[2] s2; h_t[2] s3; }
struct M { tuple<bit<8>, bit<8>> t1; }
parser P(packet_in pk, out H hdr, inout M m, inout standard_metadata_t sm) {
    state start { pk.extract(hdr.s1.next); pk.extract(hdr.s1.next); pk.extract(hdr.s2.next); transition accept; }
}
control V(inout H hdr, inout M m) { apply {} }
control I(inout H hdr, inout M m, inout standard_metadata_t sm) {
    apply {
        tuple<bit<8>, bit<8>> x = {1, 2};
        tuple<bit<8>, bit<8>> y = {3, 4};
        m.t1 = hdr.s1[0].a == 1 ? x : y;
        hdr.s3 = hdr.s1[0].a == 1 ? hdr.s1 : hdr.s2;
        hdr.s3[0].b = m.t1[0] ++ m.t1[1] == 0x0102 ? 8w0x77 : 8w0x88;
        sm.egress_spec = 0;
    }
}
control E(inout H hdr, inout M m, inout standard_metadata_t sm) { apply {} }
control C(inout H hdr, inout M m) { apply {} }
control D(packet_out pk, in H hdr) { apply { pk.emit(hdr.s3); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
