// pk.lookahead<T>() inside larger expressions in a parser state (spec 12.8.4,
// lookahead): in an extract's length argument, in arithmetic assigned to a field, a
// header's field in a comparison, and in a select key computed from one. The bits
// ahead are read where the expression stands, before the extract that consumes
// them. The varbit field extracted with that length is also a checksum input, counted
// with the bytes it holds (spec 7.1.6.4).

#include <core.p4>
#include <v1model.p4>

header len_t {
    bit<4> words;
    bit<4> kind;
}

header opts_t {
    bit<8>      first;
    varbit<120> data;
}

header out_t {
    bit<8>  peeked;
    bit<8>  big;
    bit<16> sum;
}

struct headers_t {
    out_t  o;
    len_t  l;
    opts_t opts;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        hdr.o.setValid();
        hdr.o.peeked = pk.lookahead<bit<8>>() + 1;
        hdr.o.big = pk.lookahead<len_t>().words > 2 ? 8w1 : 8w0;
        pk.extract(hdr.l);
        transition select(pk.lookahead<bit<8>>() == 0 ? 8w0 : 8w1) {
            0: accept;
            default: options;
        }
    }
    state options {
        // `first` counts the data bytes after it
        pk.extract(hdr.opts, (bit<32>)pk.lookahead<bit<8>>() * 8);
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
        update_checksum(hdr.opts.isValid(), { hdr.opts.first, hdr.opts.data },
                        hdr.o.sum, HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
