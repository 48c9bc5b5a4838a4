// An exponentially weighted moving average kept in a register, updated with a
// shift (avg += (sample - avg) >> 2, branching on the sign as RED does in fixed point).

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
    register<bit<16>>(1) avg_reg;
    action update() {
        bit<16> avg;
        avg_reg.read(avg, 0);
        bit<16> sample = (bit<16>)hdr.ip.sample << 4;
        if (sample >= avg) {
            avg = avg + ((sample - avg) >> 2);
        } else {
            avg = avg - ((avg - sample) >> 2);
        }
        avg_reg.write(0, avg);
        hdr.ip.avg_out = avg;
    }
    apply {
        sm.egress_spec = 1;
        update();
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
