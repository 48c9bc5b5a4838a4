// A header stack's `last` read as a whole header in a parser (P4_16 spec
// 8.18, "Operations on header stacks": last is the element at lastIndex,
// nextIndex - 1), as p4c's issue1607-bmv2 copies it into metadata: the parser
// loops over the stack until an element's bos bit is set, so which element is
// last is known only at run time. Ingress writes the copy into `copy`.

#include <core.p4>
#include <v1model.p4>

header elem_t {
    bit<1> bos;
    bit<7> value;
}

header copy_t {
    bit<1> bos;
    bit<7> value;
}

struct headers_t {
    elem_t[3] stack;
    copy_t    copy;
}

struct meta_t {
    elem_t last_seen;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.stack.next);
        meta.last_seen = hdr.stack.last;
        transition select(hdr.stack.last.bos) {
            1: accept;
            default: start;
        }
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
        hdr.copy.setValid();
        hdr.copy.bos = meta.last_seen.bos;
        hdr.copy.value = meta.last_seen.value;
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
