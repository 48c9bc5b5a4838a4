// A parser instantiated inside another and applied from one of its states (spec:
// parser invocation, sub-parsers): its constructor argument binds `limit`, its local
// `seen` starts at 0 at each call, its states loop, and the caller's state goes on
// after the call with the sub-parser's inout argument written back.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> kind;
}

header s_t {
    bit<8> v;
}

struct headers_t {
    h_t h;
    s_t[3] s;
}

struct meta_t {
    bit<8> count;
}

parser Stack(packet_in pk, inout headers_t hdr, inout bit<8> count)(bit<8> limit) {
    bit<8> seen = 0;
    state start {
        pk.extract(hdr.s.next);
        seen = seen + 1;
        count = seen;
        transition select(hdr.s.last.v, seen == limit) {
            (0, false): start;
            (_, _): accept;
        }
    }
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    Stack(2) two;
    Stack(1) one;
    state start {
        pk.extract(hdr.h);
        transition select(hdr.h.kind) {
            1: more;
            2: single;
            default: accept;
        }
    }
    state more {
        meta.count = 7;
        two.apply(pk, hdr, meta.count);
        meta.count = meta.count + 10;
        transition accept;
    }
    state single {
        one.apply(pk, hdr, meta.count);
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
        hdr.h.kind = meta.count;
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
