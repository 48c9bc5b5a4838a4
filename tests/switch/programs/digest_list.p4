// digest(receiver, {a, b}): a digest of a list, which P4Info types as a tuple.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<16> b;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

parser P(packet_in pk, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition accept;
    }
}

control V(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        digest(1, { hdr.h.a, hdr.h.b });
        hdr.h.a = 0;
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
    }
}

control C(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control D(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr);
    }
}

V1Switch(P(), V(), I(), E(), C(), D()) main;
