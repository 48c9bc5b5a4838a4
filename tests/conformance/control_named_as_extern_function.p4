// A control named as v1model's extern function verify_checksum, as p4c's
// issue1670-bmv2 names its checksum-verification control. p4c tells the type and
// the function apart by use: a constructor call names the type, a call statement
// the function. So the package is built from the control, and calls of the
// extern functions (update_checksum here) still mean the functions.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<16> a;
    bit<16> csum;
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

control verify_checksum(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply { }
}

control compute_checksum(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(true, { hdr.h.a }, hdr.h.csum, HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr.h);
    }
}

V1Switch(MyParser(), verify_checksum(), MyIngress(), MyEgress(), compute_checksum(),
         MyDeparser()) main;
