// An extern instance passed to a control's apply as a directionless argument
// (P4_16 spec, "Control blocks": a parameter with no direction may be an extern
// object; and 6.8, "Calling convention": an extern is passed by reference, not
// copied). The called control's method calls act on the caller's instance, as
// p4c's issue1958 does. Two instances of one control get different registers,
// and a control nested two deep reaches the outermost one.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> idx;
    bit<8> a;
    bit<8> b;
    bit<8> c;
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

control Bump(inout bit<8> seen, in bit<8> idx, register<bit<8>> cells) {
    apply {
        bit<8> v;
        cells.read(v, (bit<32>)idx);
        v = v + 1;
        cells.write((bit<32>)idx, v);
        seen = v;
    }
}

control Twice(inout bit<8> seen, in bit<8> idx, register<bit<8>> cells) {
    Bump() inner;
    apply {
        inner.apply(seen, idx, cells);
        inner.apply(seen, idx, cells);
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    register<bit<8>>(4) first;
    register<bit<8>>(4) second;
    Bump() on_first;
    Bump() on_second;
    Twice() nested;
    apply {
        on_first.apply(hdr.h.a, hdr.h.idx, first);
        on_second.apply(hdr.h.b, hdr.h.idx, second);
        nested.apply(hdr.h.c, hdr.h.idx, first);
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
