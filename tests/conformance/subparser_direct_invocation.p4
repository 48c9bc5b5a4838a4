// A parser applied by its type name, Sub.apply(...), with no instance declared
// (P4_16 spec 15.1, "Direct type invocation": as an instance made with no
// constructor arguments), and a parameter left out at the call taking its
// default value (spec 6.8.2, "Optional parameters and default values"), as
// p4c's issue1937-2-bmv2 does.

#include <core.p4>
#include <v1model.p4>

header b_t {
    bit<8> v;
}

struct headers_t {
    b_t first;
    b_t second;
}

struct meta_t {
}

parser Sub(packet_in pk, out b_t b, in bit<8> add = 3) {
    state start {
        pk.extract(b);
        b.v = b.v + add;
        transition accept;
    }
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        Sub.apply(pk, hdr.first);
        Sub.apply(pk, hdr.second, 8w0x10);
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
