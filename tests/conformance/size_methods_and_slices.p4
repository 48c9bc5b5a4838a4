// Compile-time sizes and indexed slices. minSizeInBits(), minSizeInBytes(),
// maxSizeInBits() and maxSizeInBytes() (P4_16 1.2.3, operations on headers, structs,
// unions and stacks) are compile-time ints: a varbit field counts 0 bits at least and
// its bound at most, a union its smallest or largest member, a stack every element.
// `e[L +: W]` is the W bits of e from bit L up (P4_16 1.2.5, bit slices), read and
// written. core.p4's static_assert checks a condition at compile time (spec: static
// assertions); a true one leaves nothing behind.

#include <core.p4>
#include <v1model.p4>

header opt_t {
    bit<8>      kind;
    varbit<24>  data;
}

header one_t {
    bit<8> v;
}

header two_t {
    bit<16> v;
}

header_union either_t {
    one_t one;
    two_t two;
}

header out_t {
    bit<8>  opt_min;
    bit<8>  opt_max_bytes;
    bit<8>  union_min;
    bit<8>  union_max;
    bit<8>  stack_bits;
    bit<8>  struct_bytes;
    bit<16> word;
}

struct pair_t {
    bit<4>  a;
    bit<12> b;
}

struct headers_t {
    out_t    o;
    opt_t    opt;
    either_t u;
    one_t[3] st;
}

struct meta_t {
    pair_t p;
}

const bool sizes_known = static_assert(out_t.minSizeInBits() == 64, "out_t is 8 bytes");

parser P(packet_in pk, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.o);
        transition accept;
    }
}

control NoCheck(inout headers_t hdr, inout meta_t m) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply {
        static_assert(hdr.st.maxSizeInBytes() == 3);
        sm.egress_spec = 1;
        hdr.o.opt_min = (bit<8>)hdr.opt.minSizeInBits();
        hdr.o.opt_max_bytes = (bit<8>)hdr.opt.maxSizeInBytes();
        hdr.o.union_min = (bit<8>)hdr.u.minSizeInBits();
        hdr.o.union_max = (bit<8>)hdr.u.maxSizeInBits();
        hdr.o.stack_bits = (bit<8>)hdr.st.minSizeInBits();
        hdr.o.struct_bytes = (bit<8>)m.p.minSizeInBytes();
        // Bits 4..11 of the word moved to 8..15, and the low nibble cleared.
        hdr.o.word[8 +: 8] = hdr.o.word[4 +: 8];
        hdr.o.word[0 +: 4] = 0;
    }
}

control MyEgress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { }
}

control Deparse(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr.o);
    }
}

V1Switch(P(), NoCheck(), MyIngress(), MyEgress(), NoCheck(), Deparse()) main;
