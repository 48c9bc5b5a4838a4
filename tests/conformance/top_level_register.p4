// A register declared at the top level is one array shared by ingress and egress:
// ingress writes slot 0, which egress reads for the same packet; egress writes slot 1,
// which ingress reads for the next packet.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    bit<8> m8;
}

register<bit<32>>(2) shared;

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
        shared.write(0, (bit<32>)hdr.h.a);
        bit<32> from_egress;
        shared.read(from_egress, 1);
        hdr.h.c = from_egress[7:0];
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        bit<32> from_ingress;
        shared.read(from_ingress, 0);
        hdr.h.b = from_ingress[7:0];
        shared.write(1, from_ingress << 1);
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
