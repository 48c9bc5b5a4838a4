// A bit slice as an inout argument (spec: calling convention, slices as l-values: the
// callee's writes go to those bits only), and control variables whose initializers
// call a function with an inout parameter (spec: control locals are initialised when
// the control is applied, in order, each call's copy-out before the next reads).

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> c;
    bit<8> x;
    bit<8> y;
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
    bit<8> first = next(hdr.h.c);
    bit<8> second = next(hdr.h.c);

    action set_nibble(inout bit<4> n) {
        n = n + 1;
    }

    apply {
        sm.egress_spec = 1;
        set_nibble(hdr.h.a[7:4]);
        hdr.h.x = first;
        hdr.h.y = second;
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
