/* red: RED (Floyd and Jacobson 1993) per egress port, with gentle and ECN options.
 *
 * The arithmetic is the RED core's (include/red_core.p4): this program gives it the
 * port's parameters from the control plane and applies it to every port that has a
 * red_config entry; the other ports are plain FIFOs of the switch. Each piece of state
 * (occupancy, average, count, q_r, idle time) changes in one action, which the switch
 * runs atomically, so the counts stay exact with ingress and egress on different
 * threads, on BMv2 as on p4aqm's switch (include/occupancy.p4 says why).
 * p4aqm/models/red.py is the oracle; the controller fills the tables from RED's
 * parameters.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/headers.p4"

const bit<32> NUM_PORTS = 512;
const bit<32> AQM_CELLS = NUM_PORTS;   /* one cell per port */
const bit<9>  DROP_PORT = 511;

struct metadata_t {
    bit<1>  admitted;       /* admitted under RED: egress takes it off the occupancy */
    bit<8>  w_shift;        /* w_q = 2^-w_shift */
    bit<32> min_th;         /* average thresholds in 2^-16 packets */
    bit<32> ramp_end;
    bit<32> limit_pkts;
    bit<1>  ecn_enabled;
    bit<32> occupancy;      /* packets, before this arrival */
    bit<32> avg;
    bit<32> p_b;            /* probability in 2^-24 */
    bit<2>  verdict;
}

#include "include/parser.p4"
#include "include/red_core.p4"
#include "include/queue_sampler.p4"

control MyIngress(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
#include "include/l3_forward_table.p4"

    RedAverage() red_average;
    RedRamp() red_ramp;
    RedDecision() red_decision;
    RedEnqueue() red_enqueue;
    QueueSampler() queue_sampler;

    action red_set_params(bit<8> w_shift, bit<32> min_th, bit<32> ramp_end,
                          bit<32> limit_pkts, bit<1> ecn_enabled) {
        meta.w_shift = w_shift;
        meta.min_th = min_th;
        meta.ramp_end = ramp_end;
        meta.limit_pkts = limit_pkts;
        meta.ecn_enabled = ecn_enabled;
    }

    /* Ports with an entry run RED; the others are plain FIFOs of the switch. */
    table red_config {
        key = { standard_metadata.egress_spec: exact; }
        actions = { red_set_params; NoAction; }
        default_action = NoAction();
        size = 512;
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            ipv4_lpm.apply();
        } else {
            drop();
        }
        if (standard_metadata.egress_spec != DROP_PORT && red_config.apply().hit) {
            bit<32> port = (bit<32>) standard_metadata.egress_spec;
            bit<48> now_us = standard_metadata.ingress_global_timestamp;
            red_average.apply(port, port, meta.w_shift, now_us, meta.occupancy, meta.avg);
            red_ramp.apply(port, meta.avg, meta.p_b);
            red_decision.apply(port, meta.avg, meta.min_th, meta.ramp_end, meta.p_b, 1,
                               meta.verdict);
            red_enqueue.apply(hdr.ipv4.ecn, standard_metadata, port, meta.verdict,
                              meta.limit_pkts, meta.ecn_enabled, meta.admitted);
            queue_sampler.apply(port, 0, meta.occupancy + (bit<32>) meta.admitted, meta.avg,
                                now_us);
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
