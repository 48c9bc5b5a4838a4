// Annotations whose bodies are not expressions: P4_16 spec 18.1 lets an unstructured
// annotation's body be any tokens with balanced parentheses, brackets and braces, and
// p4c reads `@pragma NAME tokens...` to the end of its line. An apostrophe, operators
// and a string among them are still an annotation, and change nothing the switch does.

#include <core.p4>
#include <v1model.p4>

header t_t {
    bit<8> y;
}

struct headers_t {
    t_t t;
}

struct meta_t {
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.t);
        transition accept;
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    @my_anno(it's fine: a + b ** c, "text" [1] {x})
    action forward(bit<9> port) {
        sm.egress_spec = port;
    }
    @pragma my_pragma with words, don't stop here
    table fwd {
        key = { hdr.t.y: exact; }
        actions = { forward; NoAction; }
        const entries = { 1: forward(2); }
        default_action = forward(1);
    }
    apply {
        fwd.apply();
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply { }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply { }
}

control MyDeparser(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr.t);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
