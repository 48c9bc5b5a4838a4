// Conditional statements in parser states (spec: parser states, whose statements may be
// conditional statements): an if with and without else, nested, with a variable declared
// in the state before the if and used after it, and an extract inside a branch.

#include <core.p4>
#include <v1model.p4>

header a_t {
    bit<8> kind;
    bit<8> len;
}

header o_t {
    bit<8> v;
}

struct headers_t {
    a_t a;
    o_t o;
}

struct meta_t {
    bit<8> tag;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.a);
        bit<8> twice = hdr.a.len + hdr.a.len;
        if (hdr.a.kind == 1) {
            pk.extract(hdr.o);
            if (hdr.o.v > 0x80) {
                meta.tag = 0xB0;
            } else {
                meta.tag = 0xA0;
            }
        } else {
            meta.tag = 0xC0;
        }
        if (hdr.a.len == 0) {
            meta.tag = meta.tag | 0x0F;
        }
        meta.tag = meta.tag + twice;
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
        hdr.a.len = meta.tag;
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
        pk.emit(hdr.a);
        pk.emit(hdr.o);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
