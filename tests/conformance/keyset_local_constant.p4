// A select keyset that is a constant declared inside the parser, and one declared in
// the control used as a table entry's key (spec: constants are compile-time values
// wherever a keyset needs one).

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
    const bit<8> MAGIC = 0x2A;
    state start {
        pk.extract(hdr.h);
        transition select(hdr.h.a) {
            MAGIC: magic;
            default: accept;
        }
    }
    state magic {
        hdr.h.b = 0x11;
        transition accept;
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    const bit<8> PORT_KEY = 0x11;
    action to(bit<9> port) {
        sm.egress_spec = port;
    }
    table t {
        key = {
            hdr.h.b: exact;
        }
        actions = {
            to;
            NoAction;
        }
        const entries = {
            PORT_KEY : to(3);
        }
    }
    apply {
        sm.egress_spec = 1;
        t.apply();
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
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
