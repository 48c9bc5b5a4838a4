// A table applied in more than one place (P4_16 allows it). BMv2's JSON gives a table
// one next node per action, so, as p4c does, the program compiles when control goes on
// to the same nodes after every application: here after both branches of an if, and
// in both arms of a switch on another table's action. Key expressions are computed
// again before each application. (When what follows differs, the compiler refuses it,
// as p4c does with "has multiple successors".)

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> kind;
    bit<8> key;
    bit<8> result;
    bit<8> count;
}

struct headers_t { h_t h; }
struct meta_t { }

parser ParserImpl(packet_in pk, out headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition accept;
    }
}

control NoVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control IngressImpl(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_out(bit<8> v) { hdr.h.result = v; }
    action first() { hdr.h.count = hdr.h.count + 1; }
    action second() { hdr.h.count = hdr.h.count + 2; }

    table lookup {
        key = { hdr.h.key + 1: exact @name("key_plus_1"); }
        actions = { set_out; NoAction; }
        const entries = {
            8w2: set_out(0x22);
            8w3: set_out(0x33);
        }
        default_action = NoAction();
    }

    table pick {
        key = { hdr.h.kind: exact; }
        actions = { first; second; NoAction; }
        const entries = {
            8w2: first();
            8w3: second();
        }
        default_action = NoAction();
    }

    apply {
        if (hdr.h.kind == 1) {
            hdr.h.count = 0x10;
            lookup.apply();
        } else {
            switch (pick.apply().action_run) {
                first: { lookup.apply(); }
                second: { lookup.apply(); }
            }
        }
        sm.egress_spec = 1;
    }
}

control EgressImpl(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control NoCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control DeparserImpl(packet_out pk, in headers_t hdr) {
    apply { pk.emit(hdr.h); }
}

V1Switch(ParserImpl(), NoVerify(), IngressImpl(), EgressImpl(), NoCompute(),
         DeparserImpl()) main;
