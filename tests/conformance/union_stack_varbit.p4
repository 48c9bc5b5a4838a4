// A stack of header unions whose members have varbit fields, filled by
// `extract(hdr.opts.next.sack, bits)`, as a TCP options parser does (p4c's
// issue561-bmv2). P4_16 spec 8.18 ("Operations on header stacks") and 8.20
// (header unions) give the stack and its members; the parser's two-argument
// extract (core.p4's packet_in, "Variable-width extraction") reads `bits` more
// bits into the varbit field. Each option's length byte sets how many bytes
// follow; the deparser emits each element's valid member with the bytes it
// holds. A length past the field's maximum is error.HeaderTooShort.

#include <core.p4>
#include <v1model.p4>

header count_t {
    bit<8> n;
}

header nop_t {
    bit<8> kind;
}

header sack_t {
    bit<8>      kind;
    bit<8>      len;
    varbit<48>  data;
}

header_union option_t {
    nop_t  nop;
    sack_t sack;
}

struct headers_t {
    count_t     count;
    option_t[3] opts;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.count);
        transition next_option;
    }
    state next_option {
        transition select(pk.lookahead<bit<8>>()) {
            1: parse_nop;
            5: parse_sack;
            default: accept;
        }
    }
    state parse_nop {
        pk.extract(hdr.opts.next.nop);
        transition next_option;
    }
    state parse_sack {
        // len counts the kind and len bytes too.
        bit<8> len = pk.lookahead<bit<16>>()[7:0];
        pk.extract(hdr.opts.next.sack, (bit<32>)(8 * len - 16));
        transition next_option;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.parser_error == error.HeaderTooShort) {
            sm.egress_spec = 2;
        }
        hdr.count.n = 0;
        if (hdr.opts[0].sack.isValid()) {
            hdr.count.n = 1;
        }
        if (hdr.opts[1].sack.isValid()) {
            hdr.count.n = hdr.count.n + 2;
        }
        if (hdr.opts[2].sack.isValid()) {
            hdr.count.n = hdr.count.n + 4;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr.count);
        pk.emit(hdr.opts);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
