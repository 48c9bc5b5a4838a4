// A function of one `return e;` that reads members of a struct parameter, called with
// list and struct expressions as arguments (spec: functions, list expressions, struct
// expressions): the members read are those of the expressions passed, nested ones
// included, whether given by position or by name.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<16> b;
}

struct inner_t {
    bit<8> x;
    bit<8> y;
}

struct outer_t {
    inner_t inr;
    bit<8>  z;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

bit<16> mix(in outer_t o) {
    return (bit<16>)(o.inr.y - o.inr.x) + (bit<16>)o.z;
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
        if (hdr.h.a == 0) {
            hdr.h.b = mix({ { 8w1, hdr.h.a + 8w5 }, 8w0x10 });
        } else {
            hdr.h.b = mix({ inr = { x = hdr.h.a, y = 8w0xF0 }, z = hdr.h.a });
        }
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
