// A table applied inside an expression, after an operand its action changes:
// `b = a + (t.apply().hit ? 1 : 0)` reads a before the table runs (spec: expression
// evaluation order, left to right), so a hit adds 1 to the old a, not to the new.

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
    action bump() {
        hdr.h.a = hdr.h.a + 100;
    }
    table t {
        key = {
            hdr.h.a: exact;
        }
        actions = {
            bump;
            NoAction;
        }
        const entries = {
            1 : bump();
        }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        hdr.h.b = hdr.h.a + (t.apply().hit ? 8w1 : 8w0);
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
