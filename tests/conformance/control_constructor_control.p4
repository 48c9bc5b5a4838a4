// A control whose constructor takes a control (spec: constructor parameters; a
// control type parameter bound at instantiation): Outer(Inner(3)) applies that Inner,
// whose own constructor constant and table come with it. The control plane names the
// table by the instances, MyIngress.o.i.t, as p4c does.

#include <core.p4>
#include <v1model.p4>

header h_t {
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

control Step(inout h_t h);

control Inner(inout h_t h)(bit<8> k) {
    action set(bit<8> v) {
        h.c = v;
    }
    table t {
        key = {
            h.a: exact;
        }
        actions = {
            set;
            NoAction;
        }
        default_action = NoAction();
    }
    apply {
        h.b = k;
        t.apply();
    }
}

control Outer(inout h_t h)(Step i) {
    apply {
        i.apply(h);
        h.b = h.b + 1;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    Outer(Inner(3)) o;
    apply {
        sm.egress_spec = 1;
        o.apply(hdr.h);
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
