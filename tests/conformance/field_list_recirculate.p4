// @field_list on user metadata (v1model 20200408): recirculate_preserving_field_list(1)
// in egress sends the deparsed packet through the parser again, with the fields
// annotated with list 1 kept and the other user metadata reset to 0 (BMv2 emits no copy
// of the packet that recirculates). The compiler writes p4c's BMv2 primitive
// `recirculate` with the list's id.

#define V1MODEL_VERSION 20200408
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> kept;
    bit<8> lost;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    @field_list(1)
    bit<8> kept;
    bit<8> lost;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition accept;
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 0) {
            meta.kept = hdr.h.a;
            meta.lost = hdr.h.a;
            recirculate_preserving_field_list(1);
        } else {
            hdr.h.kept = meta.kept;
            hdr.h.lost = meta.lost;
        }
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
