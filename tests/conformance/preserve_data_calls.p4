// v1model's older calls that name the metadata to preserve by value (v1model.p4:
// resubmit(data), clone3(type, session, data); recirculate(data) is the same): the
// fields named keep their values in the new packet, the other user metadata starts at 0.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> op;
    bit<8> a;
    bit<8> b;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    bit<8> x;
    bit<8> y;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
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
        if (sm.instance_type == 0) {
            meta.x = 7;
            meta.y = 9;
            if (hdr.h.op == 0) {
                resubmit({ meta.x });
            } else {
                clone3(CloneType.I2E, 5, { meta.y });
            }
        } else {
            // the resubmitted packet
            hdr.h.a = meta.x;
            hdr.h.b = meta.y;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 1) {
            // the ingress clone
            hdr.h.a = meta.x;
            hdr.h.b = meta.y;
        }
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
