// An assignment's target is evaluated before its value (spec: expression evaluation
// order, left to right, and the calling convention): a stack index in the target is
// read before a call in the value changes it through an inout argument, and a call in
// the target's index runs before the value's calls.

#include <core.p4>
#include <v1model.p4>

header i_t {
    bit<8> idx;
    bit<8> k;
}

header h_t {
    bit<8> v;
}

struct headers_t {
    i_t    i;
    h_t[2] h;
}

struct meta_t {
}

// Returns 0x77 and moves the index to the other element.
bit<8> flip(inout bit<8> idx) {
    idx = 1 - idx;
    return 0x77;
}

// Returns its argument, then doubles it.
bit<8> take(inout bit<8> k) {
    bit<8> was = k;
    k = k * 2;
    return was;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.i);
        pk.extract(hdr.h.next);
        pk.extract(hdr.h.next);
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
        if (hdr.i.k == 0) {
            hdr.h[hdr.i.idx].v = flip(hdr.i.idx);
        } else {
            // take(k) runs first (index k), then the value reads k doubled
            hdr.h[take(hdr.i.k) - 1].v = hdr.i.k;
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
