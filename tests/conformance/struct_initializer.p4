// Struct expressions { x = .., y = .. } and lists { .., .. } assigned to structs.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
}

header opt_t {
    bit<8> v;
    bit<8> w;
}

struct pair_t {
    bit<8> x;
    bit<8> y;
}

struct headers_t {
    h_t   h;
    opt_t o;
}

struct meta_t {
    pair_t p;
    pair_t q;
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
        meta.p = { x = hdr.h.a + 1, y = 0x22 };
        meta.q = { 0x33, hdr.h.b };
        hdr.h.c = meta.p.x + meta.q.x;
        hdr.h.d = meta.p.y ^ meta.q.y;
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
        pk.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
