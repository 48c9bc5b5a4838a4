// lookahead<T>() of a whole header type on the packet_in parser object (spec: packet
// extraction, lookahead): the header is read without being consumed, and a select on
// one of its fields decides whether it is then extracted.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> kind;
    bit<8> v;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    bit<8> peeked;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        h_t peek = pk.lookahead<h_t>();
        meta.peeked = peek.v;
        transition select(peek.kind) {
            1: take;
            default: accept;
        }
    }
    state take {
        pk.extract(hdr.h);
        transition accept;
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.h.isValid()) {
            hdr.h.v = meta.peeked + 1;
        }
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
