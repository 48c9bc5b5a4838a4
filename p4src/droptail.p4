/* droptail: a FIFO with a queue limit from the control plane: the baseline for the AQMs.
 *
 * As the AQM programs do, this one counts its own occupancy per port
 * (include/occupancy.p4: ingress adds an admitted packet, egress removes a departing one,
 * each in one atomic action) and drops an arrival that finds the queue at the limit, so
 * the limit is exact, decided at arrival, and counted; the traffic manager's own depth
 * is set above it.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/headers.p4"

const bit<32> NUM_PORTS = 512;
const bit<32> AQM_CELLS = NUM_PORTS;   /* one cell per port */
const bit<9>  DROP_PORT = 511;

struct metadata_t {
    bit<1>  admitted;     /* admitted under the limit: egress takes it off the occupancy */
    bit<32> limit_pkts;
}

#include "include/parser.p4"
#include "include/occupancy.p4"
#include "include/queue_sampler.p4"

control MyIngress(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
#include "include/l3_forward_table.p4"

    OccupancyAdmit() occupancy_admit;
    QueueSampler() queue_sampler;

    counter(NUM_PORTS, CounterType.packets) droptail_drops;

    action droptail_set_limit(bit<32> limit_pkts) {
        meta.limit_pkts = limit_pkts;
    }

    /* Ports with an entry get the program's limit; the others are the switch's FIFOs. */
    table droptail_config {
        key = { standard_metadata.egress_spec: exact; }
        actions = { droptail_set_limit; NoAction; }
        default_action = NoAction();
        size = 512;
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            ipv4_lpm.apply();
        } else {
            drop();
        }
        if (standard_metadata.egress_spec != DROP_PORT && droptail_config.apply().hit) {
            bit<32> port = (bit<32>) standard_metadata.egress_spec;
            occupancy_admit.apply(port, meta.limit_pkts, meta.admitted);
            if (meta.admitted == 0) {
                mark_to_drop(standard_metadata);
                droptail_drops.count(port);
            }
            bit<32> occupancy;
            aqm_occupancy.read(occupancy, port);
            queue_sampler.apply(port, 0, occupancy, 0, standard_metadata.ingress_global_timestamp);
        }
    }
}

control MyEgress(inout headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    OccupancyDepart() occupancy_depart;

    apply {
        if (meta.admitted == 1) {
            occupancy_depart.apply((bit<32>) standard_metadata.egress_port,
                                   standard_metadata.egress_global_timestamp);
        }
    }
}

V1Switch(
    MyParser(),
    MyVerifyChecksum(),
    MyIngress(),
    MyEgress(),
    MyComputeChecksum(),
    MyDeparser()
) main;
