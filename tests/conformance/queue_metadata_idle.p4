// In egress, a lone packet saw an empty queue: enq_qdepth and deq_qdepth are 0
// (they count packets; see v1model's standard_metadata), and egress_port is set.

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
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        hdr.ip.avg_out = (bit<16>)sm.enq_qdepth + (bit<16>)sm.deq_qdepth;
        hdr.ip.sample = (bit<8>)sm.egress_port;
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
