// == and != on headers and structs (spec: operations on headers and on structs): two
// headers are equal when both are invalid, or both valid with equal fields; structs
// when every field is. The comparisons appear in conditions and as a stored bool.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
}

struct pair_t {
    bit<8> x;
    bool flag;
}

struct headers_t {
    h_t h;
    h_t g;
    h_t none1;
    h_t none2;
}

struct meta_t {
    pair_t p;
    pair_t q;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition select(hdr.h.a) {
            1: two;
            default: accept;
        }
    }
    state two {
        pk.extract(hdr.g);
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
        if (hdr.h == hdr.g) {
            sm.egress_spec = 2;
        }
        bool differ = hdr.h != hdr.g;
        if (differ) {
            hdr.h.b = 0xEE;
        }
        meta.p = { hdr.h.a, true };
        meta.q = { 1, true };
        if (meta.p == meta.q && hdr.none1 == hdr.none2) {
            sm.egress_spec = sm.egress_spec + 4;
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
