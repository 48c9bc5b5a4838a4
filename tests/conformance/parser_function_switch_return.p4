// A function whose switch statement returns, called from a parser state (spec 12.7,
// switch statements, and functions): labels that fall through to a shared body, a body
// that returns, one that does not (the statements after the switch run), a return
// inside an if inside a body, and the default.

#include <core.p4>
#include <v1model.p4>

header a_t {
    bit<8> x;
    bit<8> r;
}

struct headers_t {
    a_t a;
}

struct meta_t {
}

bit<8> classify(in bit<8> v) {
    bit<8> r = 0x10;
    switch (v) {
        1:
        2: { return 0x0A; }
        3: { r = 0x30; }
        4: {
            if (v == 4) {
                return 0x0B;
            }
            r = 0x40;
        }
        default: { r = r + 1; }
    }
    return r + 1;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.a);
        hdr.a.r = classify(hdr.a.x);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
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
        pk.emit(hdr);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
