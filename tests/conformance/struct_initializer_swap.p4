// Every value of an initializer is read before any member is written: assigning
// { p.y, p.x } to p swaps the two members; the same for a header's fields.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
}

struct pair_t {
    bit<8> x;
    bit<8> y;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    pair_t p;
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
        meta.p = { hdr.h.a, hdr.h.b };
        meta.p = { meta.p.y, meta.p.x };
        hdr.h.c = meta.p.x;
        hdr.h.d = meta.p.y;
        hdr.h = { hdr.h.b, hdr.h.a, hdr.h.c, hdr.h.d };
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
