// Functions of several statements called inside expressions: in an operand, in an if
// condition, after && and in a branch of ?:, in an action, and one with an inout
// parameter after an operand it changes. The spec's "Calling convention: call by copy
// in/copy out" and "Expression evaluation order" (left to right) say what each gives:
// `hdr.h.a + bump(hdr.h.a)` adds the old a to the incremented one.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
    bit<8> e;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

bit<8> max(in bit<8> x, in bit<8> y) {
    if (x > y) {
        return x;
    }
    return y;
}

bool odd(in bit<8> x) {
    bit<8> low = x & 1;
    return low == 1;
}

bit<8> bump(inout bit<8> x) {
    x = x + 1;
    return x;
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
    action mix(bit<8> k) {
        hdr.h.e = max(hdr.h.a, k) - max(hdr.h.b, k);
    }
    table t {
        key = {
            hdr.h.e: exact;
        }
        actions = {
            mix;
            NoAction;
        }
        const entries = {
            0 : mix(4);
        }
    }
    apply {
        sm.egress_spec = 1;
        t.apply();
        hdr.h.c = max(hdr.h.a, hdr.h.b) + 1;
        if (hdr.h.a > 100 && odd(hdr.h.b)) {
            sm.egress_spec = 2;
        }
        if (max(hdr.h.a, hdr.h.b) == 9) {
            sm.egress_spec = 3;
        }
        hdr.h.d = odd(hdr.h.a) ? max(hdr.h.a, 50) : 7;
        hdr.h.b = hdr.h.a + bump(hdr.h.a);
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
