// Field list indices of v1model's *_preserving_field_list calls (v1model
// 20200408): an index named by a serializable enum member, in the call and in
// @field_list, and an index that no user metadata field lists, which preserves
// nothing. A packet with a = 1 is resubmitted with list Keep (only `kept`
// survives); with a = 2, with list Nothing (both are reset to 0).

#define V1MODEL_VERSION 20200408
#include <core.p4>
#include <v1model.p4>

enum bit<8> FieldLists {
    Keep    = 3,
    Nothing = 4
}

header h_t {
    bit<8> a;
    bit<8> kept;
    bit<8> lost;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    @field_list(FieldLists.Keep)
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

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (sm.instance_type == 0) {
            meta.kept = hdr.h.a;
            meta.lost = hdr.h.a;
            if (hdr.h.a == 1) {
                resubmit_preserving_field_list(FieldLists.Keep);
            } else {
                resubmit_preserving_field_list(FieldLists.Nothing);
            }
        } else {
            hdr.h.kept = meta.kept;
            hdr.h.lost = meta.lost;
        }
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
