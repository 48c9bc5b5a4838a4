// List and struct expressions as values of a struct or header type (spec 8.11-8.13:
// an initializer takes the type it is compared with or assigned to): compared with a
// header (the header made from a list is valid) and with a struct, on either side of
// == and !=, and passed to a function that returns its parameter whole.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
}

struct s_t {
    bit<8> x;
    bit<8> y;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    s_t s;
}

// The pair, or zeros when x is 0.
s_t keep(in s_t v) {
    if (v.x == 0) {
        return { 8w0, 8w0 };
    }
    return v;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
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
        meta.s = keep({ hdr.h.a, 8w2 });
        bit<8> r = 0;
        if (hdr.h == { 8w1, 8w2 }) {
            r = r | 1;
        }
        if (meta.s == { x = 8w1, y = 8w2 }) {
            r = r | 2;
        }
        if ({ 8w1, 8w2 } != meta.s) {
            r = r | 4;
        }
        hdr.h.b = r | meta.s.y << 4;
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
