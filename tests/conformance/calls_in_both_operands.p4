// Both operands of one operator call a function with an inout parameter (spec:
// expression evaluation order, left to right, and the calling convention): the left
// call's value is taken before the right call runs, and each call sees the writes of
// the one before.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> c;
    bit<8> eq;
    bit<8> ne;
    bit<8> sum;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

// Returns c, and increments it.
bit<8> next(inout bit<8> c) {
    bit<8> was = c;
    c = c + 1;
    return was;
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
        hdr.h.eq = next(hdr.h.c) == next(hdr.h.c) ? 8w1 : 8w0;
        hdr.h.ne = next(hdr.h.c) != next(hdr.h.c) ? 8w1 : 8w0;
        hdr.h.sum = next(hdr.h.c) * 16 + next(hdr.h.c);
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
