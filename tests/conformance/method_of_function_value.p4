// A method or member of a function's value: `make(v).isValid()`, `pick(v).a.isValid()`,
// `pair(v)[0].isValid()` (a header, a header union and a stack returned, as p4c's
// issue3001-1). The P4_16 spec ("Function declarations") makes the call an expression of
// the return type, which "Operations on headers", "... on header unions" and "... on
// header stacks" give isValid(), members and indices; the call is evaluated once,
// before the method ("Expression evaluation order"). A header local declared without
// a value is invalid ("Variables").

#include <core.p4>
#include <v1model.p4>

header b_t {
    bit<8> x;
}

header_union u_t {
    b_t a;
    b_t b;
}

header h_t {
    bit<8> v;
    bit<8> r;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

b_t make(in bit<8> v) {
    b_t b;
    if (v != 0) {
        b.setValid();
        b.x = v;
    }
    return b;
}

u_t pick(in bit<8> v) {
    u_t u;
    if (v == 1) {
        u.a.setValid();
        u.a.x = 1;
    }
    return u;
}

b_t[2] pair(in bit<8> v) {
    b_t[2] s;
    if (v == 2) {
        s[0].setValid();
        s[0].x = 2;
    }
    return s;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition accept;
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        hdr.h.r = 0;
        if (make(hdr.h.v).isValid()) {
            hdr.h.r = hdr.h.r | 1;
        }
        if (pick(hdr.h.v).a.isValid()) {
            hdr.h.r = hdr.h.r | 2;
        }
        if (pair(hdr.h.v)[0].isValid()) {
            hdr.h.r = hdr.h.r | 4;
        }
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply { }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
