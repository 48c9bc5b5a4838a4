// A header union's isValid() as a table key (spec 8.20: a union is valid when one of
// its members is; spec 14.2.1.1: a key is any expression). BMv2 has a validity bit per
// header, not per union, so the key is computed before the table is applied; a
// header's isValid() stays a `valid` key.

#include <core.p4>
#include <v1model.p4>

header tag_t {
    bit<8> kind;
    bit<8> result;
}

header one_t {
    bit<8> v;
}

header two_t {
    bit<16> v;
}

header_union either_t {
    one_t one;
    two_t two;
}

struct headers_t {
    tag_t    tag;
    either_t u;
}

struct meta_t {}

parser P(packet_in pk, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.tag);
        transition select(hdr.tag.kind) {
            1: one;
            2: two;
            default: accept;
        }
    }
    state one {
        pk.extract(hdr.u.one);
        transition accept;
    }
    state two {
        pk.extract(hdr.u.two);
        transition accept;
    }
}

control NoCheck(inout headers_t hdr, inout meta_t m) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    action mark(bit<8> r) {
        hdr.tag.result = r;
    }

    table by_validity {
        key = {
            hdr.u.isValid()     : exact;
            hdr.u.two.isValid() : exact;
        }
        actions = { mark; NoAction; }
        const entries = {
            (false, false) : mark(0xA0);
            (true, false)  : mark(0xB1);
            (true, true)   : mark(0xC2);
        }
        default_action = NoAction();
    }

    apply {
        sm.egress_spec = 1;
        by_validity.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { }
}

control Deparse(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr.tag);
        pk.emit(hdr.u);
    }
}

V1Switch(P(), NoCheck(), MyIngress(), MyEgress(), NoCheck(), Deparse()) main;
