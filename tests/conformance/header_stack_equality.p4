// == and != on header stacks of one type and size (spec: operations on header
// stacks, and equality of headers): equal when every element is, two elements being
// equal when both are invalid, or both valid with equal fields.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> v;
}

header r_t {
    bit<8> n;
    bit<8> flags;
}

struct headers_t {
    r_t    r;
    h_t[2] a;
    h_t[2] b;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.r);
        pk.extract(hdr.a.next);
        pk.extract(hdr.b.next);
        transition select(hdr.r.n) {
            2: second;
            default: accept;
        }
    }
    state second {
        pk.extract(hdr.a.next);
        pk.extract(hdr.b.next);
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
        bit<8> flags = 0;
        if (hdr.a == hdr.b) {
            flags = flags | 1;
        }
        h_t[2] copy = hdr.a;
        if (copy != hdr.b) {
            flags = flags | 2;
        }
        copy[1].setInvalid();
        if (copy == hdr.a) {
            flags = flags | 4;
        }
        hdr.r.flags = flags;
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
