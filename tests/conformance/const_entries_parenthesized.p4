// Keysets that start with a parenthesis: `(32w1 + 1)` and `((8w3))` are the values
// in them (a single key takes no tuple), `(32w4) + 1` an expression that goes on after
// the parentheses, `(k1, k2)` a tuple for two keys.

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
    bit<32> k;
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
    action set_b(bit<8> v) {
        hdr.h.b = v;
    }
    action set_c(bit<8> v) {
        hdr.h.c = v;
    }

    table one_key {
        key = {
            meta.k: exact;
        }
        actions = {
            set_b; NoAction;
        }
        const entries = {
            (32w1 + 1) : set_b(0x12);
            ((32w3)) : set_b(0x13);
            (32w4) + 1 : set_b(0x15);
        }
    }
    table two_keys {
        key = {
            hdr.h.a: exact;
            hdr.h.b: exact;
        }
        actions = {
            set_c; NoAction;
        }
        const entries = {
            ((8w2), (8w0x12)) : set_c(0x22);
            (8w5, 8w0x15) : set_c(0x25);
        }
    }
    apply {
        sm.egress_spec = 1;
        meta.k = (bit<32>)hdr.h.a;
        one_key.apply();
        two_keys.apply();
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
