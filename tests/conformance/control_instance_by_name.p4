// A control instance declared once and passed by name to the constructors of two
// other controls (spec: constructor parameters of control type, and instantiation):
// each applies it where its own body says. The instance here has no tables or
// externs, so applying it from two places is applying the same code twice.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<16> x;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

control step_t(inout bit<16> x);

control AddOne(inout bit<16> x) {
    apply {
        x = x + 1;
    }
}

control Double(inout bit<16> x)(step_t s) {
    apply {
        x = x << 1;
        s.apply(x);
    }
}

control Triple(inout bit<16> x)(step_t s) {
    apply {
        x = x * 3;
        s.apply(x);
    }
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
    AddOne() one;
    Double(one) twice;
    Triple(one) thrice;
    apply {
        sm.egress_spec = 1;
        twice.apply(hdr.h.x);
        thrice.apply(hdr.h.x);
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
