// verify(false, e) stops the parser with error e; headers extracted before stay
// valid and ingress sees the error in standard_metadata.parser_error.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
}

header opt_t {
    bit<8> v;
}

struct headers_t {
    h_t   h;
    opt_t o;
}

struct meta_t {
    bit<8> m8;
}

error {
    BadValue
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        verify(hdr.h.a != 0, error.BadValue);
        pk.extract(hdr.o);
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
        if (sm.parser_error == error.BadValue) {
            hdr.h.c = 0xEE;
        } else if (sm.parser_error == error.NoError) {
            hdr.h.c = 0x11;
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
