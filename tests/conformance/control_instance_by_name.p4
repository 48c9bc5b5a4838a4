// A control instance declared once and passed by name to the constructors of two
// other controls (spec: constructor parameters of control type, and instantiation):
// both apply that one instance, so its register is one register, also when a control
// passes the instance on to a control of its own. The controls sit in a control
// applied directly by its type name (spec: direct type invocation).

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<16> x;
    bit<16> first;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

control step_t(inout bit<16> x);

// Counts its applications, over all packets, into x.
control Tally(inout bit<16> x) {
    register<bit<16>>(1) seen;
    apply {
        bit<16> n;
        seen.read(n, 0);
        n = n + 1;
        seen.write(0, n);
        x = n;
    }
}

control Double(inout bit<16> x)(step_t s) {
    apply {
        x = x << 1;
        s.apply(x);
    }
}

control Triple(inout bit<16> x, out bit<16> before)(step_t s) {
    apply {
        before = x;
        s.apply(x);
    }
}

// Passes its step on to a control of its own.
control Relay(inout bit<16> x)(step_t s) {
    Double(s) inner;
    apply {
        inner.apply(x);
    }
}

control Steps(inout bit<16> x, out bit<16> first) {
    Tally() tally;
    Double(tally) twice;
    Triple(tally) thrice;
    Relay(tally) relay;
    apply {
        twice.apply(x);
        thrice.apply(x, first);
        relay.apply(x);
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
    apply {
        sm.egress_spec = 1;
        Steps.apply(hdr.h.x, hdr.h.first);
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
