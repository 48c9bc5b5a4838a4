// Table keys and const entries in forms p4c accepts (spec 14.2.1 and 14.2.1.4): a
// slice as a key (its entries are values of the slice's width, as P4Info gives it),
// a serializable enum key whose keyset gives the underlying bits with a mask (the
// enum converts to them implicitly, spec 8.3), and const entries ordered by p4c's
// `@priority(n)` annotation (BMv2's priority: 1 wins over 2; an entry without one
// takes its position).

#include <core.p4>
#include <v1model.p4>

enum bit<16> kind_t {
    LOW = 0x0011,
    HIGH = 0x2200
}

header h_t {
    bit<16> f;
    bit<16> k;
    bit<8>  r1;
    bit<8>  r2;
    bit<8>  r3;
}

struct headers_t {
    h_t h;
}

struct meta_t {
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
    action set1(bit<8> v) { hdr.h.r1 = v; }
    action set2(bit<8> v) { hdr.h.r2 = v; }
    action set3(bit<8> v) { hdr.h.r3 = v; }

    table by_slice {
        key = { hdr.h.f[11:4] : exact @name("f_middle"); }
        actions = { set1; NoAction; }
        default_action = NoAction();
    }

    table by_kind {
        key = {
            (kind_t)hdr.h.k : ternary @name("kind");
            hdr.h.r3 : exact;
        }
        actions = { set2; NoAction; }
        default_action = NoAction();
        const entries = {
            (kind_t.LOW, 0) : set2(1);
            (((bit<16>)kind_t.HIGH) &&& 0xff00, 0) : set2(2);
        }
    }

    table ordered {
        key = { hdr.h.f : ternary; }
        actions = { set3; NoAction; }
        default_action = NoAction();
        const entries = {
            0x0001 &&& 0x000f : set3(1) @priority(3);
            0x1231 : set3(2);
            0x1031 &&& 0xf0ff : set3(3) @priority(1);
        }
    }

    apply {
        sm.egress_spec = 1;
        by_slice.apply();
        by_kind.apply();
        ordered.apply();
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
