/* l3_forward: the baseline IPv4 router that every AQM program builds on.
 * An LPM table on the destination address picks the egress port and the
 * next-hop MACs; TTL is decremented and the header checksum recomputed. */
#include <core.p4>
#include <v1model.p4>
#include "include/headers.p4"

struct metadata_t { }

#include "include/parser.p4"

control MyIngress(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
#include "include/l3_forward_table.p4"

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            ipv4_lpm.apply();
        } else {
            drop();
        }
    }
}

control MyEgress(inout headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    apply { }
}

V1Switch(
    MyParser(),
    MyVerifyChecksum(),
    MyIngress(),
    MyEgress(),
    MyComputeChecksum(),
    MyDeparser()
) main;
