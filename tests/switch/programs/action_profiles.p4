// Action profiles: `ecmp` chooses an output port from a group of its selector `ecmp_sel`
// by an identity hash of the source MAC; `retag` points to members of `retag_profile`
// for the EtherType it writes. A miss in either runs no action, as in BMv2. No table
// uses `spare_sel`: P4Info lists it, the BMv2 JSON cannot (p4c's
// action_selector_unused-bmv2), and the switch must still take the pipeline.

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
    action set_type(bit<16> ether_type) { hdr.ethernet.ether_type = ether_type; }

    @max_group_size(4)
    action_selector(HashAlgorithm.identity, 32w8, 32w16) ecmp_sel;
    action_selector(HashAlgorithm.crc16, 32w4, 32w16) spare_sel;

    table ecmp {
        key = {
            hdr.ethernet.dst_addr: exact;
            hdr.ethernet.src_addr: selector;
        }
        actions = { to_port; drop; }
        implementation = ecmp_sel;
    }

    table retag {
        key = { hdr.ethernet.dst_addr: exact; }
        actions = { set_type; NoAction; }
        @name("retag_profile") implementation = action_profile(32w2);
    }

    apply {
        standard_metadata.egress_spec = 3;
        ecmp.apply();
        retag.apply();
    }
}

control EgressImpl(inout headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t standard_metadata) { apply { } }

control NoUpdate(inout headers_t hdr, inout metadata_t meta) { apply { } }

control DeparserImpl(packet_out pk, in headers_t hdr) {
    apply { pk.emit(hdr.ethernet); }
}

V1Switch(ParserImpl(), NoVerify(), IngressImpl(), EgressImpl(), NoUpdate(),
         DeparserImpl()) main;
