// A value set declared in a sub-parser: one per instance of the sub-parser, however
// many times that instance is applied, named Caller.instance.set (as p4c's issue1955).
#include <core.p4>
#include <v1model.p4>

header tag_t {
    bit<8> kind;
}

header body_t {
    bit<8> v;
}

struct headers_t {
    tag_t  tag1;
    body_t body1;
    tag_t  tag2;
    body_t body2;
}

struct meta_t {
}

parser Tagged(packet_in pk, out tag_t tag, out body_t body) {
    value_set<bit<8>>(4) kinds;
    state start {
        pk.extract(tag);
        transition select(tag.kind) {
            kinds: with_body;
            default: accept;
        }
    }
    state with_body {
        pk.extract(body);
        transition accept;
    }
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    Tagged() first;
    Tagged() second;
    state start {
        first.apply(pk, hdr.tag1, hdr.body1);
        second.apply(pk, hdr.tag2, hdr.body2);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        // Port 1, plus 1 for each body parsed (ports 1 to 3 exist in the test).
        sm.egress_spec = 1;
        if (hdr.body1.isValid()) {
            sm.egress_spec = sm.egress_spec + 1;
        }
        if (hdr.body2.isValid()) {
            sm.egress_spec = sm.egress_spec + 1;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
