// hdr.s.lastIndex in a parser is the index of the element extracted last.

#include <core.p4>
#include <v1model.p4>

header e_t {
    bit<8> v;
}

header h_t {
    bit<8> n;
}

struct headers_t {
    h_t    h;
    e_t[3] s;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition parse_e;
    }
    state parse_e {
        pk.extract(hdr.s.next);
        hdr.h.n = (bit<8>)hdr.s.lastIndex;
        transition select(hdr.s.last.v) {
            0: accept;
            default: parse_e;
        }
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
