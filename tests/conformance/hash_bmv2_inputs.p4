// hash() as BMv2 computes it (bm_sim/calculations.cpp): the fields of an invalid header
// are left out of the input (BufBuilder skips them); identity is the first 8 bytes of
// the input, big-endian; xor16 XORs 16-bit big-endian words, an odd last byte being the
// high byte of the last word.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  opt_valid;
    bit<8>  a;
    bit<8>  b;
    bit<8>  c;
    bit<16> xor16_abc;
    bit<16> crc16_a_opt;
    bit<48> identity_9_bytes;
}

header opt_t {
    bit<16> v;
}

struct headers_t {
    h_t   h;
    opt_t opt;
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

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.h.opt_valid == 1) {
            hdr.opt.setValid();
            hdr.opt.v = 0x1234;
        }
        hash(hdr.h.xor16_abc, HashAlgorithm.xor16, 16w0, { hdr.h.a, hdr.h.b, hdr.h.c },
             32w0x10000);
        hash(hdr.h.crc16_a_opt, HashAlgorithm.crc16, 16w0, { hdr.h.a, hdr.opt.v },
             32w0x10000);
        hash(hdr.h.identity_9_bytes, HashAlgorithm.identity, 48w0,
             { hdr.h.a, hdr.h.b, hdr.h.c, hdr.h.a, hdr.h.b, hdr.h.c, hdr.h.a, hdr.h.b, hdr.h.c },
             64w0x1000000000000);
        hdr.opt.setInvalid();
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
