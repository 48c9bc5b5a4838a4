// Tuples stored in variables (spec: tuple types): initialised from a list, read by
// constant index, copied whole, and reassigned from a list that reads the tuple itself,
// which must see the old values (all of a list is evaluated before the assignment).

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        tuple<bit<8>, bit<8>, bool> p = { hdr.h.a, hdr.h.b, hdr.h.c == 1 };
        tuple<bit<8>, bit<8>, bool> q = p;
        p = { p[1], p[0], !p[2] };
        hdr.h.a = p[0];
        hdr.h.b = p[1];
        if (p[2]) {
            hdr.h.c = q[0] + q[1];
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyDeparser(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
