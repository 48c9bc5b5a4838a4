// A serializable enum value is implicitly cast to its underlying type wherever
// that type is wanted (P4_16 spec 8.9.2, "Implicit casts"): assigned to a
// bit<8> field, passed as a bit<8> argument, compared with bits, as an operand
// of +, ++ and a shift, and as a header stack index. h.kind is a header field
// of the enum type, so some of these are run-time values.

#include <core.p4>
#include <v1model.p4>

enum bit<8> Kind {
    A = 1,
    B = 2
}

header h_t {
    Kind   kind;
    bit<8> x;
    bit<8> y;
    bit<8> z;
    bit<16> w;
}

header s_t {
    bit<8> v;
}

struct headers_t {
    h_t    h;
    s_t[3] s;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        pk.extract(hdr.s.next);
        pk.extract(hdr.s.next);
        pk.extract(hdr.s.next);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action set_y(bit<8> v) {
        hdr.h.y = v;
    }
    apply {
        sm.egress_spec = 1;
        hdr.h.x = Kind.B;
        set_y(hdr.h.kind);
        if (hdr.h.kind == 8w2) {
            hdr.h.z = hdr.h.kind + 8w0x10;
        } else {
            hdr.h.z = 8w1 << Kind.B;
        }
        hdr.h.w = Kind.A ++ hdr.h.kind;
        hdr.s[hdr.h.kind].v = 8w0xaa;
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
