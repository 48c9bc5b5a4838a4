// A table key whose expression applies another table, `probe.apply().hit`
// (as p4c's issue2362-bmv2). The P4_16 spec evaluates a table's key expressions
// when the table is applied ("Keys", under "Table properties"), in order and
// with their side effects ("Expression evaluation order"): probe runs (its
// action writes c) just before `route` looks up, and route matches on whether
// probe hit. A key so complex needs a @name (p4c: "Complex key expression
// requires a @name annotation").

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> c;
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

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action mark() {
        hdr.h.c = 0xaa;
    }
    action to_port(bit<9> port) {
        sm.egress_spec = port;
    }
    table probe {
        key = {
            hdr.h.a : exact;
        }
        actions = { mark; NoAction; }
        default_action = NoAction();
    }
    table route {
        key = {
            probe.apply().hit : exact @name("probe_hit");
        }
        actions = { to_port; }
        default_action = to_port(1);
    }
    apply {
        route.apply();
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
        pk.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
