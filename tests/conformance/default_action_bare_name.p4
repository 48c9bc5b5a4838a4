// A table's default action and a const entry's action written as a bare action name
// (`default_action = to_three;`, `1 : to_two;`). The P4_16 grammar's actionRef (used by
// entries) allows a name without arguments, and p4c reads `default_action = a;` as
// `a()`. Both name parameterless actions.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
}

struct headers_t {
    h_t h;
}

struct meta_t {
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
    action to_two() {
        sm.egress_spec = 2;
        hdr.h.b = 0x22;
    }
    action to_three() {
        sm.egress_spec = 3;
        hdr.h.b = 0x33;
    }
    table t {
        key = {
            hdr.h.a: exact;
        }
        actions = {
            to_two;
            to_three;
            NoAction;
        }
        const entries = {
            1 : to_two;
            2 : NoAction;
        }
        default_action = to_three;
    }
    apply {
        sm.egress_spec = 1;
        t.apply();
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
