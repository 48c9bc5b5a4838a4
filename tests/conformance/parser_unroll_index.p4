// A stack element extracted at an index that a parser local counts from state to state,
// `pk.extract(hdr.hs[i]); i = i + 1;`, as p4c's parser-unroll test programs do. BMv2's
// extract takes a header instance, so the index must be known when compiling: p4c's
// ParserUnroll copies the state once per value of `i` (`more`, `more1`, `more2`) and
// makes each index a constant. `i` stays a variable: the state `done` copies it into
// metadata, which picks the egress port. A fourth element is past the stack's end: the
// parser stops with error.StackOutOfBounds (spec 8.18), and what it extracted stays.

#include <core.p4>
#include <v1model.p4>

header t_t {
    bit<8> y;
}

struct headers_t {
    t_t[3] hs;
}

struct meta_t {
    bit<9> count;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    bit<32> i;

    state start {
        i = 0;
        transition more;
    }
    state more {
        pk.extract(hdr.hs[i]);
        i = i + 1;
        transition select(hdr.hs[i - 1].y) {
            1: more;
            default: done;
        }
    }
    state done {
        meta.count = (bit<9>) i;
        transition accept;
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = meta.count;
        if (sm.parser_error == error.StackOutOfBounds) {
            sm.egress_spec = 4;
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
