// Calls whose arguments alias, as the spec's "Calling convention: call by copy in/copy
// out" defines them: arguments are copied in left to right, the body works on the
// copies, and out and inout arguments are copied back left to right when it returns, to
// l-values fixed at the call (a run-time index is read then). So two(a, a) leaves
// a = 2, both(b, b) adds one once, `c = f(c, c)` ends with the returned value, an out
// argument that is also passed in is read as it was, and two(i, s[i].v) writes s[0].

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
}

header s_t {
    bit<8> v;
}

struct headers_t {
    h_t h;
    s_t[2] s;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        pk.extract(hdr.s[0]);
        pk.extract(hdr.s[1]);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

void two(inout bit<8> x, inout bit<8> y) {
    x = 1;
    y = 2;
}

bit<8> add_ten(in bit<8> a, inout bit<8> b) {
    b = b + 10;
    return a + b;
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action both(inout bit<8> x, inout bit<8> y) {
        x = x + 1;
        y = y + 1;
    }
    action via(in bit<8> i, out bit<8> o) {
        o = 5;
        o = o + i;
    }
    apply {
        sm.egress_spec = 1;
        two(hdr.h.a, hdr.h.a);
        both(hdr.h.b, hdr.h.b);
        hdr.h.c = add_ten(hdr.h.c, hdr.h.c);
        via(hdr.h.d, hdr.h.d);
        bit<8> i = 0;
        two(i, hdr.s[i].v);
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
