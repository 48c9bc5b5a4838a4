// Fixed-point scaling: a 16-bit value times a 16-bit factor in 32 bits, then shifted.

#include <core.p4>
#include <v1model.p4>

header ip_t {
    bit<6>  dscp;
    bit<2>  ecn;
    bit<8>  sample;
    bit<16> avg_out;
}

struct headers_t {
    ip_t ip;
}

struct meta_t {
    bit<16> avg;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.ip);
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
        bit<32> scaled = (bit<32>)hdr.ip.avg_out * 32w0x0180;
        hdr.ip.avg_out = (bit<16>)(scaled >> 8);
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
