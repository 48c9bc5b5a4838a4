// `t.apply().hit` inside `&&` and `||` conditions: the table is applied only when the
// short-circuit evaluation reaches it (spec 8.6), so its action's side effect shows
// whether it ran, and the branch taken shows the combined result.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    bit<8> m8;
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
    action seen_t() {
        hdr.h.c = hdr.h.c | 0x01;
    }
    action seen_u() {
        hdr.h.c = hdr.h.c | 0x10;
    }
    table t {
        key = {
            hdr.h.b: exact;
        }
        actions = {
            seen_t;
        }
        default_action = seen_t();
    }
    table u {
        key = {
            hdr.h.b: exact;
        }
        actions = {
            seen_u;
        }
        default_action = seen_u();
    }
    apply {
        sm.egress_spec = 1;
        if (hdr.h.a[0:0] == 1 && t.apply().hit) {
            hdr.h.d = hdr.h.d | 0x01;
        } else {
            hdr.h.d = hdr.h.d | 0x02;
        }
        if (hdr.h.a[1:1] == 1 || !u.apply().hit) {
            hdr.h.d = hdr.h.d | 0x10;
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
