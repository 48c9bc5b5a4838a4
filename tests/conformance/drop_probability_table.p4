// A range table maps an average to a drop threshold; the packet is dropped when a
// random draw (here with equal bounds) is below it.

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
    bit<8> threshold = 0;
    action set_threshold(bit<8> t) {
        threshold = t;
    }
    table prob {
        key = {
            hdr.ip.sample: range;
        }
        actions = {
            set_threshold;
            NoAction;
        }
        const entries = {
            0 .. 49 : set_threshold(0);
            50 .. 149 : set_threshold(128);
            150 .. 255 : set_threshold(255);
        }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        prob.apply();
        bit<8> r;
        random(r, 8w100, 8w100);
        if (r < threshold) {
            mark_to_drop(sm);
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
