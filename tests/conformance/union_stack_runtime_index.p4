// A stack of header unions indexed by a value known only at run time (spec 8.18,
// header stacks; 8.20, header unions): a member's field read and written through
// opts[i], isValid() of the element and of a member, and setValid() of a member,
// which invalidates the element's other member.

#include <core.p4>
#include <v1model.p4>

header tag_t {
    bit<8> op;
    bit<8> i;
    bit<8> r;
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
        transition next_opt;
    }
    state parse_b {
        pk.extract(hdr.opts.next.b);
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
        if (hdr.tag.op == 1) {
            if (hdr.opts[hdr.tag.i].a.isValid()) {
                hdr.tag.r = hdr.opts[hdr.tag.i].a.x;
            } else if (hdr.opts[hdr.tag.i].b.isValid()) {
                hdr.tag.r = hdr.opts[hdr.tag.i].b.y[7:0];
            } else {
                hdr.tag.r = 0xFF;
            }
        } else if (hdr.tag.op == 2) {
            hdr.opts[hdr.tag.i].b.setValid();
            hdr.opts[hdr.tag.i].b.kind = 2;
            hdr.opts[hdr.tag.i].b.y = 0xBEEF;
        } else if (hdr.tag.op == 3) {
            hdr.tag.r = hdr.opts[hdr.tag.i].isValid() ? 8w1 : 8w0;
        } else if (hdr.tag.op == 4) {
            hdr.opts[hdr.tag.i].a.x = hdr.opts[hdr.tag.i].a.x + 1;
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
