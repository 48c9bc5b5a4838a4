// Functions of several statements called in the places function_call_in_expression
// leaves out: a parser's select expression, a switch statement's expression, the
// argument of an action called directly, a table key (named, as p4c requires of a
// complex key), a saturating operand, and a function calling another inside its own
// return. Each is evaluated once, left to right (spec "Expression evaluation order").

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
    bit<8> e;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

bit<8> max(in bit<8> x, in bit<8> y) {
    if (x > y) {
        return x;
    }
    return y;
}

bit<8> clamp(in bit<8> x) {
    if (x > 200) {
        return 200;
    }
    return max(x, 3);
}

bit<2> kind(in bit<8> x) {
    if (x == 0) {
        return 0;
    }
    if (x < 128) {
        return 1;
    }
    return 2;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition select(kind(hdr.h.a)) {
            0: zero;
            default: accept;
        }
    }
    state zero {
        hdr.h.b = 0xEE;
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action set_d(bit<8> v) {
        hdr.h.d = v;
    }
    action to_port(bit<9> p) {
        sm.egress_spec = p;
    }
    table by_max {
        key = {
            max(hdr.h.a, hdr.h.b): exact @name("larger");
        }
        actions = {
            to_port;
            NoAction;
        }
        const entries = {
            0x40 : to_port(4);
        }
    }
    apply {
        sm.egress_spec = 1;
        switch (kind(hdr.h.a)) {
            1: {
                hdr.h.c = 0x11;
            }
            default: {
                hdr.h.c = 0x22;
            }
        }
        set_d(clamp(hdr.h.b));
        hdr.h.e = hdr.h.e |+| max(hdr.h.a, hdr.h.b);
        by_max.apply();
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
