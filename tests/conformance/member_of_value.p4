// Members of values that have no storage: a field of a header peeked at with
// lookahead<H>() (in a select key and in an assignment, spec: packet extraction,
// lookahead), and a field of a function's struct value, f(x).y.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> kind;
    bit<8> v;
}

struct pair_t {
    bit<8> x;
    bit<8> y;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    bit<8> m;
}

pair_t successor(in bit<8> a) {
    return { a, a + 1 };
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        transition select(pk.lookahead<h_t>().v) {
            7: take;
            default: accept;
        }
    }
    state take {
        pk.extract(hdr.h);
        meta.m = pk.lookahead<h_t>().kind;
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
        if (hdr.h.isValid()) {
            hdr.h.v = successor(hdr.h.kind).y + meta.m;
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
