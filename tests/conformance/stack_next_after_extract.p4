// A parser loop that selects on `hs.next.y` right after `extract(hs.next)`, as
// p4c's issue692-bmv2 does. P4_16 spec 8.18 ("Header stacks") says `next` is the
// element at nextIndex; p4c's parser unrolling gives `next` the index it had when
// the state began, so the select reads the element just extracted (hs.last), and
// that is what BMv2 runs. A fourth element overflows the stack: the parser stops
// with error.StackOutOfBounds (spec 8.18) and what it extracted stays.

#include <core.p4>
#include <v1model.p4>

header t_t {
    bit<8> y;
}

struct headers_t {
    t_t[3] hs;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        transition more;
    }
    state more {
        pk.extract(hdr.hs.next);
        transition select(hdr.hs.next.y) {
            1: more;
            default: accept;
        }
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.StackOutOfBounds) {
            sm.egress_spec = 2;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply { }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr.hs);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
