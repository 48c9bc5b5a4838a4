/* cbq: class-based queueing (Floyd & Jacobson 1995) as a weighted class scheduler on the
 * traffic manager's priority queues: the upper bound of Parris, Jeffay and Smith's CBT study.
 *
 * A table the controller fills sorts each packet into a class on its egress port, IPv4
 * protocol and DSCP, and the class is a priority queue (standard_metadata.priority; the
 * switch runs with --priority-queues). The scheduling is the traffic manager's: each
 * class's queue is rate-limited to the class's share, and the highest priority queue
 * with a packet due goes first (p4aqm/controller/disciplines/cbq.py says how).
 *
 * As the AQM programs do, this one counts each class's packets (include/occupancy.p4)
 * and drops an arrival that finds its class at its limit, so the drops are decided at
 * arrival and counted per class; the traffic manager's queues are set deeper.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/headers.p4"

const bit<32> NUM_PORTS = 512;
const bit<32> CELLS_PER_PORT = 8;        /* one per priority: v1model's priority is bit<3> */
const bit<32> AQM_CELLS = 4096;          /* NUM_PORTS * CELLS_PER_PORT */
const bit<9>  DROP_PORT = 511;

struct metadata_t {
    bit<1>  admitted;     /* admitted under its class's limit: egress takes it off */
    bit<3>  priority;     /* the class: its priority queue */
    bit<32> limit_pkts;   /* the class's limit */
    bit<32> cell;         /* port * 8 + priority */
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

    counter(AQM_CELLS, CounterType.packets) cbq_drops;

    action cbq_set_class(bit<3> priority, bit<32> limit_pkts) {
        meta.priority = priority;
        meta.limit_pkts = limit_pkts;
    }

    /* The classifier. A CBQ port has a catch-all entry (its default class) after its
     * rules; a port without entries misses and stays the switch's FIFO. */
    table cbq_class {
        key = {
            standard_metadata.egress_spec: exact;
            hdr.ipv4.protocol: ternary;
            hdr.ipv4.dscp: ternary;
        }
        actions = { cbq_set_class; NoAction; }
        default_action = NoAction();
        size = 4096;
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            ipv4_lpm.apply();
        } else {
            drop();
        }
        if (standard_metadata.egress_spec != DROP_PORT && cbq_class.apply().hit) {
            bit<32> port = (bit<32>) standard_metadata.egress_spec;
            meta.cell = port * CELLS_PER_PORT + (bit<32>) meta.priority;
            occupancy_admit.apply(meta.cell, meta.limit_pkts, meta.admitted);
            if (meta.admitted == 0) {
                mark_to_drop(standard_metadata);
                cbq_drops.count(meta.cell);
            }
            standard_metadata.priority = meta.priority;
            bit<32> occupancy;
            aqm_occupancy.read(occupancy, meta.cell);
            queue_sampler.apply(port, (bit<8>) meta.priority, occupancy, 0,
                                standard_metadata.ingress_global_timestamp);
        }
    }
}

control MyEgress(inout headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    OccupancyDepart() occupancy_depart;

    apply {
        if (meta.admitted == 1) {
            occupancy_depart.apply(meta.cell, standard_metadata.egress_global_timestamp);
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
