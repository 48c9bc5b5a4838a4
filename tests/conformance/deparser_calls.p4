// Extern function calls in the deparser. p4c's BMv2 back end keeps a deparser's emits
// as its header order and turns its extern function calls (log_msg, truncate, ...)
// into the deparser's "primitives"; BMv2's Deparser::deparse runs them after the
// checksum update and before it emits the headers, and simple_switch applies a
// truncation at transmit, so truncate() here cuts the deparsed packet. A `return`
// ends the deparser (P4_16 spec 12.4): the emit after it does not happen.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
}

header tail_t {
    bit<8> t;
}

struct headers_t {
    h_t    h;
    tail_t tail;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        pk.extract(hdr.tail);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        hdr.h.b = hdr.h.a + 1;
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
        log_msg("deparsing a={} b={}", { hdr.h.a, hdr.h.b });
        pk.emit(hdr.h);
        truncate(32w4);
        return;
        pk.emit(hdr.tail);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
