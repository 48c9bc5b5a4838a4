// Assigning a whole header stack to another of the same type copies every element with
// its validity (spec "Assignment", header stacks; p4c: assign_header_stack): with one
// element extracted, the copy's second element stays invalid and is not emitted.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> count;
}

header s_t {
    bit<8> v;
}

struct headers_t {
    h_t h;
    s_t[2] s1;
    s_t[2] s2;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        pk.extract(hdr.s1[0]);
        transition select(hdr.h.count) {
            2: second;
            default: accept;
        }
    }
    state second {
        pk.extract(hdr.s1[1]);
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
        hdr.s2 = hdr.s1;
        hdr.s2[0].v = hdr.s2[0].v + 1;
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
