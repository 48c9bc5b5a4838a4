// Constructor parameters of parsers, specialised per instance as p4c does: a
// sub-parser instantiated twice with different arguments (one left to its default),
// and the top-level parser given its argument in the main package.

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

parser Sub(packet_in b, out h_t h)(bit<8> n, bit<8> m = 8w0x30) {
    state start {
        b.extract(h);
        h.b = n + m;
        transition accept;
    }
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm)(bit<8> mark) {
    Sub(8w4) first;
    Sub(8w5, 8w0x10) second;
    state start {
        transition select(pk.lookahead<bit<8>>()) {
            1: one;
            default: other;
        }
    }
    state one {
        first.apply(pk, hdr.h);
        hdr.h.c = mark;
        transition accept;
    }
    state other {
        second.apply(pk, hdr.h);
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

V1Switch(MyParser(8w0x99), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
