// Functions whose body is one `return e;` but which have out or inout parameters
// (spec: functions, and the calling convention's copy-in/copy-out), used for their
// value inside expressions: in a control's apply block, as the right operand of ||,
// and inside an action. The value is computed, and the out header argument is left
// invalid (spec 6.8), even where || would not need the call's value.

#include <core.p4>
#include <v1model.p4>

header f_t {
    bit<8> r1;
    bit<8> r2;
    bit<8> c;
}

header h_t {
    bit<8> v;
}

struct headers_t {
    f_t f;
    h_t a;
    h_t b;
}

struct meta_t {
}

bool take(out h_t h) {
    return true;
}

bit<8> next(inout bit<8> x) {
    return x + 1;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.f);
        pk.extract(hdr.a);
        pk.extract(hdr.b);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action count(inout bit<8> c) {
        c = next(c) + 0x10;
    }

    apply {
        sm.egress_spec = 1;
        hdr.f.r1 = take(hdr.a) ? 8w1 : 8w2;
        bool b = hdr.f.r2 == 0 || take(hdr.b);
        hdr.f.r2 = b ? 8w3 : 8w4;
        count(hdr.f.c);
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
