/* droptail: a FIFO with a queue limit from the control plane: the baseline for the AQMs.
 *
 * As red.p4 does, the program counts its own queue occupancy per port in a register
 * (ingress adds an admitted packet, egress removes a departing one) and drops an
 * arrival that finds the queue at the limit, so the limit is exact, decided at arrival,
 * and counted; the traffic manager's own depth is set above it.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/headers.p4"

const bit<32> NUM_PORTS = 512;
const bit<9>  DROP_PORT = 511;

struct metadata_t {
    bit<1>  tracked;      /* admitted under the limit: egress must take it off qlen */
    bit<32> limit_pkts;
    bit<32> qlen;
}

#include "include/parser.p4"

register<bit<32>>(NUM_PORTS) droptail_qlen;   /* packets admitted and not yet departed */

#include "include/queue_sampler.p4"

control MyIngress(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
#include "include/l3_forward_table.p4"

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
            droptail_qlen.read(meta.qlen, port);
            if (meta.qlen >= meta.limit_pkts) {
                mark_to_drop(standard_metadata);
                droptail_drops.count(port);
            } else {
                meta.qlen = meta.qlen + 1;
                droptail_qlen.write(port, meta.qlen);
                meta.tracked = 1;
            }
            queue_sampler.apply(port, 0, meta.qlen, 0, standard_metadata.ingress_global_timestamp);
        }
    }
}

control MyEgress(inout headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    apply {
        if (meta.tracked == 1) {
            bit<32> port = (bit<32>) standard_metadata.egress_port;
            bit<32> qlen;
            droptail_qlen.read(qlen, port);
            /* A count the control plane reset while packets were queued must not wrap. */
            if (qlen != 0) {
                droptail_qlen.write(port, qlen - 1);
            }
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
