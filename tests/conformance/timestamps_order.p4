// The egress timestamp is never earlier than the ingress timestamp, and the enqueue
// timestamp lies between them.

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
        bit<8> r = 0;
        if (sm.egress_global_timestamp >= sm.ingress_global_timestamp) {
            r = r | 1;
        }
        if ((bit<48>)sm.enq_timestamp <= sm.egress_global_timestamp) {
            r = r | 2;
        }
        hdr.ip.sample = r;
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
