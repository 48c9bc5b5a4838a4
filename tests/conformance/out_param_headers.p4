// Out parameters start uninitialized (spec 6.8, calling convention: an out header or
// header union is invalid at the start of the callee, an out header stack has every
// element invalid, and a struct's members follow these rules), and a header variable
// declared without an initializer is invalid (spec: uninitialized values) each time its
// declaration runs, also in a function called twice. Callers pass headers the parser
// made valid: whatever the callee does not make valid again is gone from the packet.

#include <core.p4>
#include <v1model.p4>

header flags_t {
    bit<8> op;
    bit<8> seen;
}

header h_t {
    bit<8> v;
}

struct pair_t {
    h_t    h;
    bit<8> n;
}

struct headers_t {
    flags_t  f;
    h_t      a;
    h_t      b;
    h_t[2]   st;
    pair_t   p;
    h_t      t;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.f);
        pk.extract(hdr.a);
        pk.extract(hdr.b);
        pk.extract(hdr.st.next);
        pk.extract(hdr.st.next);
        pk.extract(hdr.p.h);
        pk.extract(hdr.t);
        transition accept;
    }
}

// Makes h valid again only when asked to.
void maybe(out h_t h, in bit<8> make) {
    if (make == 1) {
        h.setValid();
        h.v = 0x77;
    }
}

void clear_stack(out h_t[2] s) {
}

void fill_pair(out pair_t p) {
    p.n = 5;
}

// 1 if the local is valid at its end: only when `make` is 1, whatever an earlier
// call left in it.
bit<8> local_valid(in bit<8> make) {
    h_t tmp;
    if (make == 1) {
        tmp.setValid();
    }
    if (tmp.isValid()) {
        return 1;
    }
    return 0;
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action reset(out h_t h) {
    }

    table on_t {
        key = { hdr.f.op: exact; }
        actions = { reset(hdr.t); NoAction; }
        const entries = { 2: reset(hdr.t); }
        default_action = NoAction();
    }

    apply {
        sm.egress_spec = 1;
        reset(hdr.a);
        maybe(hdr.b, hdr.f.op);
        clear_stack(hdr.st);
        fill_pair(hdr.p);
        on_t.apply();
        bit<8> first = local_valid(1);
        bit<8> second = local_valid(0);
        hdr.f.seen = first << 4 | second;
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
