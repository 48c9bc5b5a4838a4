// A variable declared in a parser state is visible to the end of that state (spec:
// parser states, local declarations), also after the state applies a sub-parser (spec:
// parser invocation): the caller passes the variable to the sub-parser and reads it
// after the call. Two states declare a variable of the same name and apply the same
// sub-parser instance; each keeps its own.

#include <core.p4>
#include <v1model.p4>

header tag_t {
    bit<8> kind;
}

header v_t {
    bit<8> v;
}

struct pair_t {
    v_t    first;
    bit<8> doubled;
}

struct headers_t {
    tag_t tag;
    v_t   out1;
    v_t   out2;
}

struct meta_t {}

parser Pair(packet_in pk, inout pair_t p) {
    state start {
        pk.extract(p.first);
        p.doubled = p.first.v + p.first.v;
        transition accept;
    }
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    Pair() pair;
    state start {
        pk.extract(hdr.tag);
        transition select(hdr.tag.kind) {
            1: one;
            2: two;
            default: accept;
        }
    }
    state one {
        pair_t local = { { 0 }, 0x11 };
        local.first.setInvalid();
        pair.apply(pk, local);
        hdr.out1.setValid();
        hdr.out1.v = local.doubled;
        transition accept;
    }
    state two {
        pair_t local = { { 0 }, 0x22 };
        local.first.setInvalid();
        bit<8> before = local.doubled;
        pair.apply(pk, local);
        hdr.out1.setValid();
        hdr.out1.v = before;
        hdr.out2.setValid();
        hdr.out2.v = local.first.v;
        transition accept;
    }
}

control NoCheck(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyDeparser(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr.tag);
        pk.emit(hdr.out1);
        pk.emit(hdr.out2);
    }
}

V1Switch(MyParser(), NoCheck(), MyIngress(), MyEgress(), NoCheck(), MyDeparser()) main;
