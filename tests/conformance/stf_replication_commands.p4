// The STF commands that configure BMv2's packet replication engine and read
// externs, as p4c's BMv2 runner passes them to simple_switch_CLI: mirroring_add (an
// ingress-to-egress clone, v1model's clone(CloneType.I2E, session)), mc_mgrp_create,
// mc_node_create and mc_node_associate (a multicast group's copies, each with its
// node's egress_rid), register_write before packets, and check_counter after them.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> op;
    bit<8> v;
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
    counter(4, CounterType.packets) seen;
    register<bit<8>>(1) value;

    apply {
        seen.count(0);
        value.read(hdr.h.v, 0);
        if (hdr.h.op == 1) {
            sm.mcast_grp = 1;
        } else {
            sm.egress_spec = 1;
            clone(CloneType.I2E, 5);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        if (sm.instance_type == 1) {
            // the ingress clone: the packet as it came in, marked here
            hdr.h.v = 0xCC;
        }
        if (sm.mcast_grp == 1) {
            hdr.h.op = 0x10 + (bit<8>)sm.egress_rid;
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
