// The control-plane names of table keys without a @name, as p4c's front end makes
// them (its TableKeyNames pass; they name the keys in the BMv2 JSON, P4Info and STF
// `add` lines): a path of members and indices as written; `isValid()` of a header or
// header union as `$valid$`, the name P4Runtime expects; a slice as `x[hi:lo]`; a
// constant in the base it was written in; `&` between two named parts. A struct field
// with a @name is named by it. Any other key expression needs a @name (p4c: "Complex
// key expression requires a @name annotation"). The STF adds entries by the names its
// grammar can spell; tests/compiler/test_key_names.py checks every name.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<16> f;
    bit<8>  out1;
    bit<8>  out2;
}

header opt_t {
    bit<8> v;
}

header alt_t {
    bit<8> w;
}

header_union u_t {
    opt_t o;
    alt_t x;
}

struct meta_t {
    @name("renamed_m") bit<8> m;
}

struct headers_t {
    h_t   h;
    u_t   u;
    opt_t[2] st;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition select(hdr.h.a) {
            1: parse_o;
            2: parse_x;
            default: accept;
        }
    }
    state parse_o {
        pk.extract(hdr.u.o);
        transition accept;
    }
    state parse_x {
        pk.extract(hdr.u.x);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set1(bit<8> v) { hdr.h.out1 = v; }
    action set2(bit<8> v) { hdr.h.out2 = v; }

    // Names: "hdr.u.o.$valid$", "hdr.u.$valid$", "hdr.st[0].$valid$".
    table by_validity {
        key = {
            hdr.u.o.isValid() : exact;
            hdr.u.isValid()   : exact;
            hdr.st[0].isValid() : exact;
        }
        actions = { set1; NoAction; }
        default_action = NoAction();
    }

    // Names: "hdr.h.f & 0xff0", "hdr.h.f[3:0]", "renamed_m" is a field's @name and
    // so the key "meta.renamed_m".
    table by_parts {
        key = {
            hdr.h.f & 0xFF0 : exact;
            hdr.h.f[3:0]    : exact;
            meta.m          : exact;
        }
        actions = { set2; NoAction; }
        default_action = NoAction();
        const entries = {
            (0x230, 0x4, 3) : set2(0xB1);
        }
    }

    apply {
        sm.egress_spec = 1;
        meta.m = hdr.h.a;
        by_validity.apply();
        by_parts.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr.h);
        pk.emit(hdr.u);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
