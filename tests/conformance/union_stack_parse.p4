// A stack of header unions (spec 7.2.3 and 8.18, header stacks; 8.20, header
// unions): the parser extracts one member of the next element at a time, and
// a select reads `last` and `lastIndex`; controls reach an element by constant
// index (its members, its isValid()); the deparser emits each element's valid
// member in order. A fourth option overflows the stack: error.StackOutOfBounds.

#include <core.p4>
#include <v1model.p4>

header tag_t {
    bit<8> count;
    bit<8> last_b;
}

header a_t {
    bit<8> kind;
    bit<8> x;
}

header b_t {
    bit<8>  kind;
    bit<16> y;
}

header_union opt_t {
    a_t a;
    b_t b;
}

struct headers_t {
    tag_t    tag;
    opt_t[3] opts;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.tag);
        transition next_opt;
    }
    state next_opt {
        transition select(pk.lookahead<bit<8>>()) {
            1: parse_a;
            2: parse_b;
            default: accept;
        }
    }
    state parse_a {
        pk.extract(hdr.opts.next.a);
        // x == 0xFF ends the options.
        transition select(hdr.opts.last.a.x) {
            0xFF: accept;
            default: next_opt;
        }
    }
    state parse_b {
        pk.extract(hdr.opts.next.b);
        hdr.tag.last_b = (bit<8>)hdr.opts.lastIndex;
        transition next_opt;
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
        if (hdr.opts[0].a.isValid()) {
            hdr.opts[0].a.x = hdr.opts[0].a.x + 1;
        }
        if (hdr.opts[1].b.isValid()) {
            hdr.opts[1].b.y = hdr.opts[1].b.y + 1;
        }
        if (hdr.opts[2].isValid()) {
            hdr.tag.count = 3;
        } else if (hdr.opts[1].isValid()) {
            hdr.tag.count = 2;
        } else if (hdr.opts[0].isValid()) {
            hdr.tag.count = 1;
        } else {
            hdr.tag.count = 0;
        }
        if (sm.parser_error == error.StackOutOfBounds) {
            hdr.tag.count = 0xEE;
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
        pk.emit(hdr.tag);
        pk.emit(hdr.opts);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
