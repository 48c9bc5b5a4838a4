// A table declared in a control that the ingress applies; the control plane names
// it through the instance (MyIngress.inner.t).

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

control Inner(inout bit<8> key, inout bit<8> out_v) {
    action set(bit<8> v) {
        out_v = v;
    }
    table t {
        key = {
            key: exact;
        }
        actions = {
            set;
            NoAction;
        }
        default_action = NoAction();
    }
    apply {
        t.apply();
    }
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
    Inner() inner;
    apply {
        sm.egress_spec = 1;
        inner.apply(hdr.h.a, hdr.h.c);
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
