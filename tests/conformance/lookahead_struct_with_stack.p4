// lookahead<T>() of a struct holding a header stack (P4_16 spec 12.8.3,
// "Lookahead": T is any fixed-size type): every element is peeked at from its
// own offset and valid, and a select reads them. The packet is not advanced:
// the state that follows extracts the same bytes.

#include <core.p4>
#include <v1model.p4>

header b_t {
    bit<8> v;
}

struct peek_t {
    bit<8> tag;
    b_t[3] b;
}

header out_t {
    bit<8> which;
}

struct headers_t {
    b_t    first;
    out_t  res;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        peek_t p = pk.lookahead<peek_t>();
        hdr.res.setValid();
        transition select(p.tag, p.b[0].v, p.b[2].v, p.b[1].isValid()) {
            (1, 0xaa, _, true): zero;
            (1, _, 0xcc, true): two;
            default: other;
        }
    }
    state zero {
        hdr.res.which = 0;
        transition done;
    }
    state two {
        hdr.res.which = 2;
        transition done;
    }
    state other {
        hdr.res.which = 9;
        transition done;
    }
    state done {
        pk.extract(hdr.first);
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
        pk.emit(hdr.res);
        pk.emit(hdr.first);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
