// Constants of struct, header and tuple type (P4_16 1.2.4, "constants" and
// "compile-time known values": a list or struct expression whose items are all
// compile-time known is itself compile-time known). A field or element of such a
// constant is a compile-time constant too: it may be a select case, a table entry's
// key or an action argument. Default values `...` (1.2.4) may fill the fields not named.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
}

struct inner_t {
    bit<8> v;
    bool   f;
}

struct outer_t {
    inner_t i;
    bit<8>  w;
}

struct headers_t {
    h_t h;
    h_t extra;
}

struct meta_t { }

const outer_t OUTER = { i = { v = 4, f = true }, w = 0x10 };
const inner_t PARTIAL = { v = 3, ... };
const tuple<bit<8>, bit<8>> PAIR = { 1, 2 };
const h_t HEADER = { a = 0xAA, b = 0xBB };

parser ParserImpl(packet_in pk, out headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition select(hdr.h.a) {
            OUTER.i.v: four;
            default: accept;
        }
    }
    state four {
        hdr.h.b = 0x44;
        transition accept;
    }
}

control NoVerify(inout headers_t hdr, inout meta_t meta) { apply { } }

control IngressImpl(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    const outer_t LOCAL = { i = PARTIAL, w = 7 };

    action set_b(bit<8> v) { hdr.h.b = v; }

    table by_a {
        key = { hdr.h.a: exact; }
        actions = { set_b; NoAction; }
        const entries = { (PARTIAL.v): set_b(OUTER.w); }
        default_action = set_b(PAIR[0]);
    }

    apply {
        outer_t copy = OUTER;
        if (hdr.h.a == 1) {
            // 4 + 0x10 + 1 + 3 + 2 + 7 + 3 = 0x24
            hdr.h.a = copy.i.v + OUTER.w + (OUTER.i.f ? 8w1 : 8w0) + PARTIAL.v + PAIR[1]
                      + LOCAL.w + LOCAL.i.v;
        } else if (hdr.h.a == 2) {
            hdr.extra = HEADER;
        } else if (copy == OUTER && !PARTIAL.f && hdr.h.b == 0) {
            by_a.apply();
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
        pk.emit(hdr.h);
        pk.emit(hdr.extra);
    }
}

V1Switch(ParserImpl(), NoVerify(), IngressImpl(), EgressImpl(), NoCompute(),
         DeparserImpl()) main;
