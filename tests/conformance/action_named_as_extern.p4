// An action named as a v1model extern function: `hash` at the top level, `random` in
// the control. As p4c resolves names, by scope and then by the number of arguments,
// `hash()` and `random()` run the actions, while `hash(...)` and `random(...)` with
// the extern's arguments call the externs.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

action hash() {
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
    action random() {
        hdr.h.b = 0x77;
    }
    table t {
        key = {
            hdr.h.a: exact;
        }
        actions = {
            hash; random;
        }
        const entries = {
            1 : random();
        }
        default_action = hash();
    }
    apply {
        sm.egress_spec = 1;
        t.apply();
        hash();
        bit<16> x;
        hash(x, HashAlgorithm.identity, 16w0, { hdr.h.a }, 16w256);
        hdr.h.c = (bit<8>)x + 1;
        bit<8> r;
        random(r, 8w5, 8w5);
        hdr.h.d = r;
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
