// A header field wider than 128 bits (spec 7.1.6.1: bit<W> for any W > 0): it is
// extracted and emitted with its bits in order, and copied with its header. (The
// switch reads fields of at most 128 bits as values, so this program does not read it
// on its own.)

#include <core.p4>
#include <v1model.p4>

header big_t {
    bit<8>   tag;
    bit<256> data;
}

struct headers_t {
    big_t a;
    big_t b;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.a);
        transition select(hdr.a.tag) {
            1: second;
            default: accept;
        }
    }
    state second {
        pk.extract(hdr.b);
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
        if (!hdr.b.isValid()) {
            hdr.b = hdr.a;
            hdr.b.tag = 2;
        } else {
            big_t t = hdr.a;
            hdr.a = hdr.b;
            hdr.b = t;
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
