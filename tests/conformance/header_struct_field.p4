// A header field of struct type, itself holding a struct (spec: type nesting rules
// allow structs of fixed-width fields in headers): it is parsed and emitted in place,
// in declaration order; its members are read and written, the whole struct is copied
// to metadata, and compared with ==.

#include <core.p4>
#include <v1model.p4>

struct inner_t {
    bit<8> v;
}

struct pair_t {
    bit<4> hi;
    bit<4> lo;
    inner_t q;
}

header h_t {
    bit<8> a;
    pair_t p;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    pair_t saved;
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
        meta.saved = hdr.h.p;
        hdr.h.p.q.v = hdr.h.p.q.v + hdr.h.a;
        hdr.h.p.hi = meta.saved.lo;
        hdr.h.p.lo = meta.saved.hi;
        if (hdr.h.p == meta.saved) {
            sm.egress_spec = 2;
        }
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
