// IPv4 options as a varbit field, extracted with extract(hdr, bits) by ihl
// (spec 7.1.6.4, 12.8.2): the options are emitted unchanged, a header whose
// options run past the packet's end is PacketTooShort, and a length above
// the varbit's maximum is HeaderTooShort (an ihl below 5 wraps to one).

#include <core.p4>
#include <v1model.p4>

header ipv4_t {
    bit<4>  version;
    bit<4>  ihl;
    bit<8>  diffserv;
    bit<16> totalLen;
    bit<16> identification;
    bit<3>  flags;
    bit<13> fragOffset;
    bit<8>  ttl;
    bit<8>  protocol;
    bit<16> hdrChecksum;
    bit<32> srcAddr;
    bit<32> dstAddr;
}

header ipv4_options_t {
    varbit<320> options;
}

header tail_t {
    bit<8> marker;
}

struct headers_t {
    ipv4_t         ipv4;
    ipv4_options_t opts;
    tail_t         tail;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.ipv4);
        pk.extract(hdr.opts, (bit<32>)(((bit<16>)hdr.ipv4.ihl - 5) * 32));
        pk.extract(hdr.tail);
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
        if (sm.parser_error == error.PacketTooShort) {
            hdr.ipv4.ttl = 0xE1;
        } else if (sm.parser_error == error.HeaderTooShort) {
            hdr.ipv4.ttl = 0xE2;
        } else if (hdr.opts.isValid()) {
            hdr.ipv4.ttl = hdr.ipv4.ttl - 1;
            hdr.tail.marker = hdr.tail.marker + 1;
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
