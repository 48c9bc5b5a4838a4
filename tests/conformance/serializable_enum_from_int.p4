// Casts to a serializable enum from its underlying type and from an integer literal,
// and back (spec: enumeration types): any value of the underlying type converts,
// including one no member names, and it keeps its bits.

#include <core.p4>
#include <v1model.p4>

enum bit<8> E {
    A = 1,
    B = 2
}

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

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        E e = (E)hdr.h.a;
        if (e == E.B) {
            sm.egress_spec = 2;
        }
        if (e == (E)1) {
            sm.egress_spec = 3;
        }
        hdr.h.b = (bit<8>)e + 0x10;
        E f = (E)7;
        hdr.h.c = (bit<8>)f;
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
