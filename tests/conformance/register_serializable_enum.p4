// A register whose cells are a serializable enum (v1model's register<T> with
// T = enum bit<16> EtherKind, as p4c's register-serenum-bmv2): a cell holds
// the enum's underlying bits, written from a header field of the enum type
// and read back into an enum variable. A packet with op 1 stores its kind in
// cell 0; every packet then carries cell 0 out in `stored`.

#include <core.p4>
#include <v1model.p4>

enum bit<16> EtherKind {
    IPv4 = 0x0800,
    ARP  = 0x0806
}

header h_t {
    bit<8>    op;
    EtherKind kind;
    EtherKind stored;
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

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    register<EtherKind>(4) kinds;
    apply {
        sm.egress_spec = 1;
        if (hdr.h.op == 1) {
            kinds.write(0, hdr.h.kind);
        }
        EtherKind k;
        kinds.read(k, 0);
        hdr.h.stored = k;
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
