// Default values (P4_16 1.2.4, "initializing with default values"): `...` alone is the
// default value of the type it initializes, and `{a, ...}` or `{x = a, ...}` gives the
// items not written their defaults; the dots come last. Defaults: bit<W> 0, bool false,
// error.NoError, an enum's first member, a serializable enum 0 (named or not), a header
// or union invalid, a stack all invalid; `{...}` for a header is a valid header whose
// fields are all 0. `{#}` is an invalid header or header union.

#include <core.p4>
#include <v1model.p4>

enum bit<8> Level { LOW = 3, HIGH = 5 }
enum Kind { FIRST, SECOND }

header in_t {
    bit<8> tag;
}

header pair_t {
    bit<8> x;
    bit<8> y;
}

header one_t {
    bit<8> v;
}

header_union either_t {
    one_t  one;
    pair_t pair;
}

struct inner_t {
    bit<8> v;
    error  e;
}

struct outer_t {
    inner_t i;
    bool    flag;
    Level   level;
    Kind    kind;
    bit<8>  w;
}

header report_t {
    bit<8> sum;
    bit<8> flags;
    bit<8> tuple_sum;
}

struct headers_t {
    in_t     in_h;
    one_t[2] stack;
    either_t u;
    pair_t   named;
    pair_t   zeroed;
    pair_t   dropped;
    report_t report;
}

struct meta_t { }

parser ParserImpl(packet_in pk, out headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.in_h);
        pk.extract(hdr.stack.next);
        pk.extract(hdr.stack.next);
        pk.extract(hdr.u.one);
        pk.extract(hdr.dropped);
        transition accept;
    }
}

control NoVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control IngressImpl(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        outer_t all_default = ...;
        outer_t some = { i = ..., w = 9, ... };
        inner_t by_position = { 4, ... };
        tuple<bit<8>, bool> tp = { 7, ... };

        hdr.report.setValid();
        hdr.report.sum = all_default.i.v + all_default.w + some.w + by_position.v
                         + (bit<8>)all_default.level;
        hdr.report.flags = (all_default.flag ? 8w0x80 : 8w0)
                         | (all_default.kind == Kind.FIRST ? 8w0x40 : 8w0)
                         | (some.i.e == error.NoError ? 8w0x20 : 8w0)
                         | (by_position.e == error.NoError ? 8w0x10 : 8w0);
        hdr.report.tuple_sum = tp[0] + (tp[1] ? 8w1 : 8w0);

        if (hdr.in_h.tag == 1) {
            hdr.named = { y = 0x22, ... };
            hdr.zeroed = { ... };
            hdr.dropped = ...;
            hdr.stack = ...;
            hdr.u = ...;
        } else if (hdr.in_h.tag == 2) {
            hdr.u = {#};
        }
        sm.egress_spec = 1;
    }
}

control EgressImpl(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control NoCompute(inout headers_t hdr, inout meta_t meta) { apply { } }

control DeparserImpl(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr.in_h);
        pk.emit(hdr.stack);
        pk.emit(hdr.u);
        pk.emit(hdr.named);
        pk.emit(hdr.zeroed);
        pk.emit(hdr.dropped);
        pk.emit(hdr.report);
    }
}

V1Switch(ParserImpl(), NoVerify(), IngressImpl(), EgressImpl(), NoCompute(),
         DeparserImpl()) main;
