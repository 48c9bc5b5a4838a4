// Slices of integer values: of an int<8> field (its two's complement bits, unsigned),
// of a computed bit<8> value, of an arbitrary-precision constant, and a slice as an
// assignment's target (spec: bit-string and integer operations, slices).

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
    int<8> e;
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
    apply {
        const int K = 0x1234;
        sm.egress_spec = 1;
        hdr.h.b = (bit<8>)hdr.h.e[7:4];
        hdr.h.c = (bit<8>)(hdr.h.a + 8w3)[7:4] + K[11:4];
        hdr.h.d[3:0] = hdr.h.e[3:0];
        int<8> n = -3;
        hdr.h.a = n[7:0];
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
