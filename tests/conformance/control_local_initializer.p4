// Control-level variables with initializers (P4_16 spec 1.2.4, section 14.1, "a
// control's local declarations are executed each time it is applied"): the initial
// value is there in the top-level control and in a control it applies, on every packet,
// even after an action changed it for an earlier one.

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

control Inner(inout bit<8> out_value, in bit<8> add) {
    bit<8> base = 0x40;

    action bump() { base = base + add; }

    apply {
        bump();
        out_value = base;
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    bit<8> seven = 7;
    Inner() inner;

    apply {
        hdr.h.b = seven;
        seven = hdr.h.a;
        hdr.h.c = seven;
        inner.apply(hdr.h.a, 1);
        sm.egress_spec = 1;
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
        pk.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
