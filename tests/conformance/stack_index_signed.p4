// A header stack indexed at run time by a signed value (spec: header stacks; an index
// outside the stack, a negative one included, reads an unspecified value and writes
// nothing, "Reading uninitialized values and writing fields of invalid headers").

#include <core.p4>
#include <v1model.p4>

header i_t {
    int<8> idx;
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
        hdr.h[hdr.i.idx].v = 0xEE;
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
