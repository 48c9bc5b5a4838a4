// `?:` choosing between structs, headers and header unions (spec 8.6.x, the
// conditional operator: any type, only the chosen branch evaluated), and `==` / `!=`
// of header unions (spec 8.19, operations on header unions: equal when every member is
// equal as a header, so both all invalid, or the same member valid in both with equal
// fields; a different valid member makes them unequal). A chosen header keeps its
// validity: copying an invalid one gives an invalid header.

#include <core.p4>
#include <v1model.p4>

header ctl_t {
    bit<4> mode;   // which union members the parser fills
    bit<4> pick;   // 1: the first of each pair is chosen, else the second
}

header v_t {
    bit<8> v;
}

header w_t {
    bit<8> w;
}

header_union u_t {
    v_t v;
    w_t w;
}

header res_t {
    bit<8> eq;
    bit<8> ne;
    bit<8> chosen;   // the chosen struct's x and y, one per nibble
    bit<8> hdr;      // the chosen header's v, or EE when it is invalid
    bit<8> uw;       // the chosen union's w, or DD when that member is invalid
}

struct pair_t {
    bit<4> x;
    bit<4> y;
}

struct headers_t {
    ctl_t ctl;
    u_t   u1;
    u_t   u2;
    v_t   extra;
    res_t res;
}

struct meta_t {
    pair_t p;
    pair_t q;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.ctl);
        transition select(hdr.ctl.mode) {
            1: both_v;
            2: v_then_w;
            3: both_w;
            default: accept;
        }
    }
    state both_v {
        pk.extract(hdr.u1.v);
        pk.extract(hdr.u2.v);
        transition accept;
    }
    state v_then_w {
        pk.extract(hdr.u1.v);
        pk.extract(hdr.u2.w);
        transition accept;
    }
    state both_w {
        pk.extract(hdr.u1.w);
        pk.extract(hdr.u2.w);
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
        meta.p = { 1, 2 };
        meta.q = { 3, 4 };
        bool first = hdr.ctl.pick == 1;
        pair_t c = first ? meta.p : meta.q;
        u_t chosen_union = first ? hdr.u1 : hdr.u2;
        hdr.extra = first ? hdr.u1.v : hdr.u2.v;
        hdr.res.setValid();
        hdr.res.eq = hdr.u1 == hdr.u2 ? 8w1 : 8w0;
        hdr.res.ne = hdr.u1 != hdr.u2 ? 8w1 : 8w0;
        hdr.res.chosen = c.x ++ c.y;
        hdr.res.hdr = hdr.extra.isValid() ? hdr.extra.v : 8w0xEE;
        hdr.res.uw = chosen_union.w.isValid() ? chosen_union.w.w : 8w0xDD;
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
