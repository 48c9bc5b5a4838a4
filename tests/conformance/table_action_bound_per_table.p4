// One action whose directional parameters each table binds to different
// l-values (P4_16 spec 14.2.1.2, "Actions": the actions list supplies the
// arguments of directional parameters): t1 and t2 bind `put`'s out parameter
// to different fields, t3 to a header stack element, and t2's const default
// action runs `put` with t2's binding. The control plane names the action once
// for every table. The STF writes the stack key as p4c's runner reads it
// (`hs$0.k` for `hs[0].k`).

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
}

header s_t {
    bit<8> k;
    bit<8> v;
}

struct headers_t {
    h_t    h;
    s_t[2] hs;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        pk.extract(hdr.hs.next);
        pk.extract(hdr.hs.next);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action put(out bit<8> dst, bit<8> v) {
        dst = v;
    }
    action bump(inout bit<8> x) {
        x = x + 1;
    }
    table t1 {
        key = {
            hdr.h.a: exact;
        }
        actions = {
            put(hdr.h.b);
            bump(hdr.h.b);
            NoAction;
        }
        default_action = NoAction();
    }
    table t2 {
        key = {
            hdr.h.a: exact;
        }
        actions = {
            put(hdr.h.c);
            bump(hdr.h.d);
        }
        const default_action = put(hdr.h.c, 8w0xee);
    }
    table t3 {
        key = {
            hdr.hs[0].k: exact;
        }
        actions = {
            put(hdr.hs[1].v);
            NoAction;
        }
        default_action = NoAction();
    }
    apply {
        sm.egress_spec = 1;
        t1.apply();
        t2.apply();
        t3.apply();
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
