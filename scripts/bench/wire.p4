/* wire: the empty pipeline of the forwarding benchmark. No header is parsed and no table
 * applied; port 1 goes to port 2. Its rate is the ceiling of the switch's packet I/O. */
#include <core.p4>
#include <v1model.p4>

struct headers_t { }
struct metadata_t { }

parser WireParser(packet_in packet, out headers_t hdr, inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    state start { transition accept; }
}

control WireVerifyChecksum(inout headers_t hdr, inout metadata_t meta) { apply { } }

control WireIngress(inout headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t standard_metadata) {
    apply { standard_metadata.egress_spec = 2; }
}

control WireEgress(inout headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t standard_metadata) { apply { } }

control WireComputeChecksum(inout headers_t hdr, inout metadata_t meta) { apply { } }

control WireDeparser(packet_out packet, in headers_t hdr) { apply { } }

V1Switch(WireParser(), WireVerifyChecksum(), WireIngress(), WireEgress(),
         WireComputeChecksum(), WireDeparser()) main;
