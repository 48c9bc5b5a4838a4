// Checksum inputs that are concatenations, `a ++ b` (P4_16 spec 8.6, "Operations
// on bit types": the bits of a followed by those of b), in update_checksum and
// verify_checksum, as p4c's issue1765-bmv2 has. The checksum controls run no
// primitives, so the calculation reads the operands in turn, which is the same
// bit string. csum16 of {8w0 ++ a, b ++ c ++ 8w0} is ~(00aa + bbcc + cc00) in
// one's complement; a packet whose csum field already holds it verifies.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> c;
    bit<16> csum;
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

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
        verify_checksum(true, { 8w0 ++ hdr.h.a, hdr.h.b ++ hdr.h.c ++ 8w0 },
                        hdr.h.csum, HashAlgorithm.csum16);
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        // Port 2 when the checksum on arrival was right, 1 otherwise.
        sm.egress_spec = 1;
        if (sm.checksum_error == 0) {
            sm.egress_spec = 2;
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply {
        update_checksum(true, { 8w0 ++ hdr.h.a, hdr.h.b ++ hdr.h.c ++ 8w0 },
                        hdr.h.csum, HashAlgorithm.csum16);
    }
}

control MyDeparser(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr.h);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
