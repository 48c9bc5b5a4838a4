// Assigning a union copies its valid member (or none) and the member's
// validity; invalidating a member leaves the union invalid (spec 8.20).

#include <core.p4>
#include <v1model.p4>

header tag_t {
    bit<8> kind;
}

header a_t {
    bit<8> x;
}

header b_t {
    bit<16> y;
}

header_union ab_t {
    a_t a;
    b_t b;
}

struct headers_t {
    tag_t tag;
    ab_t  u;
    ab_t  v;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.tag);
        transition select(hdr.tag.kind) {
            1: parse_a;
            2: parse_b;
            default: accept;
        }
    }
    state parse_a {
        pk.extract(hdr.u.a);
        transition accept;
    }
    state parse_b {
        pk.extract(hdr.u.b);
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
        hdr.v = hdr.u;
        hdr.u.a.setInvalid();
        hdr.u.b.setInvalid();
        if (hdr.v.isValid() && !hdr.u.isValid()) {
            hdr.tag.kind = hdr.tag.kind + 0x10;
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
