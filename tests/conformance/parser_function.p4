// Functions whose bodies branch, called from a parser state (spec: functions, the
// calling convention's copy-in/copy-out, and parser states): an early return, a return
// value used directly and inside an expression, an out parameter, one such function
// calling another, and the same function called twice in one state.

#include <core.p4>
#include <v1model.p4>

header a_t {
    bit<8> x;
    bit<8> y;
    bit<8> r1;
    bit<8> r2;
    bit<8> r3;
}

struct headers_t {
    a_t a;
}

struct meta_t {
    bit<8> low;
}

// 0 for v < 16, 1 for v < 128, 2 above.
bit<8> bucket(in bit<8> v) {
    if (v < 16) {
        return 0;
    }
    if (v < 128) {
        return 1;
    }
    return 2;
}

// The larger of a and b; low gets the other.
bit<8> larger(in bit<8> a, in bit<8> b, out bit<8> low) {
    bit<8> high = a;
    low = b;
    if (b > a) {
        high = b;
        low = a;
    }
    return high + bucket(high) - bucket(high);
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.a);
        hdr.a.r1 = bucket(hdr.a.x) * 16 + bucket(hdr.a.y);
        bit<8> high = larger(hdr.a.x, hdr.a.y, meta.low);
        hdr.a.r2 = high;
        hdr.a.r3 = meta.low;
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
        pk.emit(hdr.a);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
