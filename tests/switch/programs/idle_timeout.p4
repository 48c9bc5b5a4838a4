// Idle timeouts: `forward` may age out (v1model's support_timeout), `plain` may not.

#include <core.p4>
#include <v1model.p4>

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

struct headers_t { ethernet_t ethernet; }
struct metadata_t { }

parser ParserImpl(packet_in pk, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start {
        pk.extract(hdr.ethernet);
        transition accept;
    }
}

control NoVerify(inout headers_t hdr, inout metadata_t meta) { apply { } }

control IngressImpl(inout headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t standard_metadata) {
    action to_port(bit<9> port) { standard_metadata.egress_spec = port; }
    action drop() { mark_to_drop(standard_metadata); }

    table forward {
        key = { hdr.ethernet.dst_addr: exact; }
        actions = { to_port; drop; }
        default_action = drop();
        support_timeout = true;
    }

    table plain {
        key = { hdr.ethernet.src_addr: exact; }
        actions = { NoAction; }
        default_action = NoAction();
    }

    apply {
        forward.apply();
        plain.apply();
    }
}

control EgressImpl(inout headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t standard_metadata) { apply { } }

control NoCompute(inout headers_t hdr, inout metadata_t meta) { apply { } }

control DeparserImpl(packet_out pk, in headers_t hdr) {
    apply { pk.emit(hdr.ethernet); }
}

V1Switch(ParserImpl(), NoVerify(), IngressImpl(), EgressImpl(), NoCompute(),
         DeparserImpl()) main;
