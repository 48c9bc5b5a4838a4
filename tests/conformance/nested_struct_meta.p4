// Metadata with nested structs; fields at each level are separate storage.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
}

struct inner_t {
    bit<8> v;
    bit<4> w;
}

struct outer_t {
    inner_t i1;
    inner_t i2;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    outer_t o;
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
        sm.egress_spec = 1;
        meta.o.i1.v = hdr.h.a;
        meta.o.i2.v = hdr.h.b;
        meta.o.i1.w = 0xF;
        hdr.h.c = meta.o.i1.v + meta.o.i2.v;
        hdr.h.d = 4w0 ++ meta.o.i1.w;
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
