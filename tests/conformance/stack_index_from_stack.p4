// A run-time stack index that is itself read from the stack: `s[s[0].v].v = 1`. The
// spec evaluates the l-value, index included, once and before the assignment
// ("Expression evaluation order"), so writing element 0 must not move the write: with
// s = [0, 5] the result is [1, 5], not [1, 1]. Reads use such an index as well.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> r;
}

header s_t {
    bit<8> v;
}

struct headers_t {
    h_t h;
    s_t[2] s;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        pk.extract(hdr.s[0]);
        pk.extract(hdr.s[1]);
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
        hdr.h.r = hdr.s[hdr.s[1].v - 4].v;
        hdr.s[hdr.s[0].v].v = 1;
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
