// push_front and pop_front on a stack of header unions (spec 8.18, header
// stacks): whole elements move, each with its valid member; the elements that
// come free are invalid (no member valid) until a member is made valid.
// Assigning a whole union stack, or one element (a union), copies each member
// with its validity (spec 8.20, header unions).

#include <core.p4>
#include <v1model.p4>

header tag_t {
    bit<8> op;
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
    opt_t[3] saved;

    apply {
        sm.egress_spec = 1;
        if (hdr.tag.op == 1) {
            hdr.opts.push_front(1);
            hdr.opts[0].b.setValid();
            hdr.opts[0].b.kind = 2;
            hdr.opts[0].b.y = 0xBEEF;
        } else if (hdr.tag.op == 2) {
            hdr.opts.pop_front(1);
        } else if (hdr.tag.op == 3) {
            hdr.opts.push_front(2);
        } else if (hdr.tag.op == 4) {
            // Rotates the options by one.
            saved = hdr.opts;
            hdr.opts.pop_front(1);
            hdr.opts[2] = saved[0];
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
