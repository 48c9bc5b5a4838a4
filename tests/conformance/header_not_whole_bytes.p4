// A header whose fields do not fill whole bytes (P4_16 allows any field widths; here
// 8 + 16 + 1 = 25 bits). p4c pads every header type to whole bytes for BMv2 with a
// `_padding` field, so such a header takes 4 bytes of the packet: extract reads its
// fields from the first 25 bits and keeps the other 7 as padding, emit writes them back,
// and a header made valid by setValid() has its padding 0. p4c's
// table-entries-ternary-bmv2 has a 41-bit header. Equality compares the fields only.

#include <core.p4>
#include <v1model.p4>

header odd_t {
    bit<8>  kind;
    bit<16> value;
    bit<1>  flag;
}

header tail_t {
    bit<8> v;
}

struct headers_t {
    odd_t   first;
    odd_t   second;
    odd_t   made;
    tail_t  tail;
}

struct meta_t { }

parser ParserImpl(packet_in pk, out headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.first);
        pk.extract(hdr.second);
        pk.extract(hdr.tail);
        transition accept;
    }
}

control NoVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control IngressImpl(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    table by_flag {
        key = { hdr.first.flag: exact; }
        actions = { NoAction; }
        const entries = { 1w1: NoAction(); }
        default_action = NoAction();
    }

    apply {
        if (hdr.first == hdr.second) {
            hdr.tail.v = 0xEE;
        }
        if (by_flag.apply().hit) {
            hdr.made.setValid();
            hdr.made.kind = hdr.first.kind;
            hdr.made.value = hdr.second.value;
            hdr.made.flag = 1;
        }
        hdr.second.value = hdr.second.value + 1;
        sm.egress_spec = 1;
    }
}

control EgressImpl(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control NoCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control DeparserImpl(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr.first);
        pk.emit(hdr.second);
        pk.emit(hdr.made);
        pk.emit(hdr.tail);
    }
}

V1Switch(ParserImpl(), NoVerify(), IngressImpl(), EgressImpl(), NoCompute(),
         DeparserImpl()) main;
