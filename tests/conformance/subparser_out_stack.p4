// A sub-parser's out parameters of header stack type (spec 6.8, calling convention:
// an out header stack has every element invalid and nextIndex 0 at the start of the
// callee; spec: parser invocation). The caller extracts one option into the stack, then
// passes the stack out to a sub-parser that extracts `count` options with `next`: the
// caller's option is gone, and the sub-parser's first one lands at index 0. A generic
// sub-parser (`out H h`, its type taken from the argument) resets a header the same way.

#include <core.p4>
#include <v1model.p4>

header count_t {
    bit<8> count;
}

header opt_t {
    bit<8> v;
}

struct headers_t {
    count_t  c;
    opt_t[3] opts;
    opt_t    last;
}

struct meta_t {
}

parser Options(packet_in pk, out opt_t[3] opts, in bit<8> count) {
    bit<8> left = count;
    state start {
        transition select(left) {
            0: accept;
            default: one;
        }
    }
    state one {
        pk.extract(opts.next);
        left = left - 1;
        transition start;
    }
}

parser Maybe<H>(packet_in pk, out H h, in bool take) {
    state start {
        transition select(take) {
            true: get;
            false: accept;
        }
    }
    state get {
        pk.extract(h);
        transition accept;
    }
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    Options() options;
    Maybe<opt_t>() maybe;
    state start {
        pk.extract(hdr.c);
        pk.extract(hdr.opts.next);
        pk.extract(hdr.last);
        options.apply(pk, hdr.opts, hdr.c.count);
        maybe.apply(pk, hdr.last, hdr.c.count == 1);
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
        // 0x80 | 0x40 | 0x20: which elements are valid; 0x10: last is valid
        bit<8> seen = 0;
        if (hdr.opts[0].isValid()) {
            seen = seen | 0x80;
        }
        if (hdr.opts[1].isValid()) {
            seen = seen | 0x40;
        }
        if (hdr.opts[2].isValid()) {
            seen = seen | 0x20;
        }
        if (hdr.last.isValid()) {
            seen = seen | 0x10;
        }
        hdr.c.count = seen;
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
        pk.emit(hdr.c);
        pk.emit(hdr.opts);
        pk.emit(hdr.last);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
