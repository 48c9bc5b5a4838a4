// A table's apply().hit and .miss used as values, not as an if's condition: stored in
// a metadata field and in a local, then tested. The spec's "Match-action unit
// invocation" gives apply() a result with the fields hit, miss and action_run.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    bool seen;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action set_b() {
        hdr.h.b = 0xBB;
    }
    table t {
        key = {
            hdr.h.a: exact;
        }
        actions = {
            set_b;
            NoAction;
        }
        const entries = {
            1 : set_b();
        }
        default_action = NoAction();
    }
    table u {
        key = {
            hdr.h.a: exact;
        }
        actions = {
            NoAction;
        }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        meta.seen = t.apply().hit;
        bool missed = u.apply().miss;
        if (meta.seen) {
            hdr.h.c = 1;
        }
        if (missed && hdr.h.a == 2) {
            sm.egress_spec = 2;
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
