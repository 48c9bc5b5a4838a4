// hash() with HashAlgorithm.crc16_custom and crc32_custom. BMv2 configures a custom
// CRC as the standard one (crc16: poly 0x8005 reflected, init 0; crc32: IEEE 802.3)
// until simple_switch_CLI's set_crc16_parameters or set_crc32_parameters changes it,
// which this switch has no command for; so these are crc16 and crc32.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  b;
    bit<16> crc16_custom;
    bit<32> crc32_custom;
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
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hash(hdr.h.crc16_custom, HashAlgorithm.crc16_custom, 16w0, { hdr.h.a, hdr.h.b },
             32w0x10000);
        hash(hdr.h.crc32_custom, HashAlgorithm.crc32_custom, 32w0, { hdr.h.a, hdr.h.b },
             64w0x100000000);
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
