// A switch statement in a parser state (P4_16 spec, "Parser states" allow
// conditional statements; "Switch statement"): the first label that matches runs its
// body, labels without a body fall through to the next, default runs when none
// matches, and the statements after the switch run in every case. The body may
// change the switched value without another label being tested.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> op;
    bit<8> r;
    bit<8> after;
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
        switch (hdr.h.op) {
            1: {
                hdr.h.r = 0x11;
                hdr.h.op = 2;
            }
            2:
            3: {
                hdr.h.r = 0x23;
            }
            default: {
                hdr.h.r = 0xDD;
            }
        }
        hdr.h.after = hdr.h.after + 1;
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
