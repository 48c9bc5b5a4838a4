// A sub-parser's out parameter (spec: parser invocation, and the calling convention's
// out direction): the argument starts uninitialized at the call, so every header in it
// is invalid there, even one the caller had extracted. Here a struct of two headers is
// passed out; the sub-parser extracts one of them again only for kind 1.

#include <core.p4>
#include <v1model.p4>

header a_t {
    bit<8> kind;
}

header o_t {
    bit<8> v;
}

struct opts_t {
    o_t o;
    o_t p;
}

struct headers_t {
    a_t a;
    opts_t opts;
}

struct meta_t {
}

parser Options(packet_in pk, out opts_t opts, in bit<8> kind) {
    state start {
        transition select(kind) {
            1: take;
            default: accept;
        }
    }
    state take {
        pk.extract(opts.o);
        transition accept;
    }
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    Options() options;
    state start {
        pk.extract(hdr.a);
        pk.extract(hdr.opts.o);
        pk.extract(hdr.opts.p);
        options.apply(pk, hdr.opts, hdr.a.kind);
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
        pk.emit(hdr.a);
        pk.emit(hdr.opts);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
