// Lookaheads and extracts whose values are not kept (spec 12.8.3 and 12.8.4): a
// lookahead used as a statement still needs its bits (PacketTooShort without them),
// a struct can be peeked at, and `pk.extract<H>(_)` consumes a header's bits
// without keeping the header.

#include <core.p4>
#include <v1model.p4>

struct peek_t {
    bit<8> first;
    bit<8> second;
}

header skip_t {
    bit<16> ignored;
}

header h_t {
    bit<8> a;
    bit<8> b;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    peek_t p;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.lookahead<bit<32>>();
        meta.p = pk.lookahead<peek_t>();
        pk.extract<skip_t>(_);
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
        if (sm.parser_error == error.PacketTooShort) {
            sm.egress_spec = 2;
        } else {
            sm.egress_spec = 1;
            hdr.h.a = meta.p.first;
            hdr.h.b = meta.p.second;
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
