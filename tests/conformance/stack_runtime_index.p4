// Stack elements read and written with an index known only at run time; isValid()
// of such an element.

#include <core.p4>
#include <v1model.p4>

header e_t {
    bit<8> v;
}

header h_t {
    bit<8> i;
    bit<8> out_v;
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
        pk.extract(hdr.s[0]);
        pk.extract(hdr.s[1]);
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
        hdr.h.out_v = hdr.s[hdr.h.i].v;
        hdr.s[hdr.h.i].v = 0xEE;
        if (!hdr.s[hdr.h.i + 1].isValid()) {
            hdr.h.i = 0xFF;
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
