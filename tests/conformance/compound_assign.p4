// Compound assignments += -= |= &= ^= <<= >>= |+|= |-|= (spec 12.1, P4_16 1.2.4):
// `a op= b` is `a = a op b`, with `a` evaluated once.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
}

header more_t {
    bit<8> shl;
    bit<8> shr;
    bit<8> sat_add;
    bit<8> sat_sub;
    bit<8> and;
}

struct headers_t {
    h_t    h;
    more_t m;
}

struct meta_t {
    bit<8> m8;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        pk.extract(hdr.m);
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
        hdr.h.a += 1;
        hdr.h.b -= 1;
        hdr.h.c |= 0x0F;
        hdr.h.d ^= 0xFF;
        hdr.m.shl <<= 1;
        hdr.m.shr >>= 2;
        hdr.m.sat_add |+|= 0x20;
        hdr.m.sat_sub |-|= 0x20;
        hdr.m.and &= 0x0F;
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
