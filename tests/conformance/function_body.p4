// A function with local variables, if/else and several return statements, called
// as x = f(...) from an apply block and from an action.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    bit<8> m8;
}

bit<8> clamp(in bit<8> v, in bit<8> lo, in bit<8> hi) {
    if (v < lo) {
        return lo;
    }
    bit<8> r = v;
    if (r > hi) {
        r = hi;
    }
    return r;
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
    action act() {
        hdr.h.d = clamp(hdr.h.b, 0x20, 0x30);
    }
    apply {
        sm.egress_spec = 1;
        hdr.h.c = clamp(hdr.h.a, 0x10, 0x20);
        act();
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
