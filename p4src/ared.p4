/* ared: Adaptive RED (Floyd, Gummadi and Shenker 2001) per egress port, with ECN option.
 *
 * The RED core (include/red_core.p4) with gentle on, and with max_p in a per-port
 * register that the data plane adapts itself: a second register holds the time of the
 * next adaptation, and the first arrival at or after it moves max_p towards the target
 * band (additive increase, multiplicative decrease) and sets the next one an interval
 * later. p4aqm/models/ared.py explains the arithmetic, which this program follows
 * exactly.
 *
 * Because max_p changes in the data plane, the ramp table cannot hold p_b: it holds two
 * fractions a and b of the ramp, and p_b = (max_p a + (1 - max_p) b) in 2^-24.
 *
 * RED's state and counters keep RED's names, so tools that read RED's average, queue and
 * decisions read ARED's the same way; ared_max_p and ared_next_adapt are the two
 * registers ARED adds, and they change together in one action.
 *
 * Verified: tests/aqm/test_ared_exact.py runs this program and the model side by side
 * over 100,000 packets in virtual time and compares max_p, the next adaptation time and
 * RED's state after every packet, through hundreds of increases and decreases.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/headers.p4"

const bit<32> NUM_PORTS = 512;
const bit<32> AQM_CELLS = NUM_PORTS;   /* one cell per port */
const bit<9>  DROP_PORT = 511;
const bit<8>  BETA_BITS = 16;          /* the decrease factor beta is in 2^-BETA_BITS */

struct metadata_t {
    bit<1>  admitted;       /* admitted under ARED: egress takes it off the occupancy */
    bit<32> port;
    bit<8>  w_shift;        /* w_q = 2^-w_shift */
    bit<32> min_th;         /* average thresholds in 2^-16 packets */
    bit<32> ramp_end;       /* 2 max_th: gentle is always on */
    bit<32> limit_pkts;
    bit<1>  ecn_enabled;
    bit<32> band_low;       /* the target band of the average, in 2^-16 packets */
    bit<32> band_high;
    bit<48> interval_us;
    bit<32> max_p_init;     /* probabilities in 2^-24 */
    bit<32> max_p_top;
    bit<32> max_p_bottom;
    bit<32> alpha;
    bit<32> beta;
    bit<32> occupancy;      /* packets, before this arrival */
    bit<32> avg;
    bit<32> max_p;
    bit<32> ramp_a;         /* ramp fractions in 2^-24 */
    bit<32> ramp_b;
    bit<32> p_b;            /* probability in 2^-24 */
    bit<2>  verdict;
}

#include "include/parser.p4"
#include "include/red_core.p4"
#include "include/queue_sampler.p4"

register<bit<32>>(NUM_PORTS) ared_max_p;       /* in 2^-24 */
register<bit<48>>(NUM_PORTS) ared_next_adapt;  /* us; 0 until the port's first arrival */

control MyIngress(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
#include "include/l3_forward_table.p4"

    RedAverage() red_average;
    RedDecision() red_decision;
    RedEnqueue() red_enqueue;
    QueueSampler() queue_sampler;

    action ared_set_params(bit<8> w_shift, bit<32> min_th, bit<32> ramp_end,
                           bit<32> limit_pkts, bit<1> ecn_enabled,
                           bit<32> band_low, bit<32> band_high, bit<48> interval_us,
                           bit<32> max_p_init, bit<32> max_p_top, bit<32> max_p_bottom,
                           bit<32> alpha, bit<32> beta) {
        meta.w_shift = w_shift;
        meta.min_th = min_th;
        meta.ramp_end = ramp_end;
        meta.limit_pkts = limit_pkts;
        meta.ecn_enabled = ecn_enabled;
        meta.band_low = band_low;
        meta.band_high = band_high;
        meta.interval_us = interval_us;
        meta.max_p_init = max_p_init;
        meta.max_p_top = max_p_top;
        meta.max_p_bottom = max_p_bottom;
        meta.alpha = alpha;
        meta.beta = beta;
    }

    /* Ports with an entry run ARED; the others are plain FIFOs of the switch. */
    table ared_config {
        key = { standard_metadata.egress_spec: exact; }
        actions = { ared_set_params; NoAction; }
        default_action = NoAction();
        size = 512;
    }

    /* After the average is updated, so that it sees any idle decay first: the port's
     * first arrival loads the initial max_p; the first at or after next_adapt moves max_p
     * towards the band. */
    action ared_adapt() {
        bit<32> max_p;
        bit<48> next_adapt;
        bit<48> now_us = standard_metadata.ingress_global_timestamp;
        ared_max_p.read(max_p, meta.port);
        ared_next_adapt.read(next_adapt, meta.port);
        bit<32> quarter = max_p >> 2;
        bit<32> increased = max_p + (quarter < meta.alpha ? quarter : meta.alpha);
        bit<32> decreased = (bit<32>) (((bit<64>) max_p * (bit<64>) meta.beta) >> BETA_BITS);
        bit<32> adapted = meta.avg > meta.band_high && max_p <= meta.max_p_top ? increased
                        : (meta.avg < meta.band_low && max_p >= meta.max_p_bottom ? decreased
                                                                                  : max_p);
        meta.max_p = next_adapt == 0 ? meta.max_p_init
                   : (now_us >= next_adapt ? adapted : max_p);
        ared_max_p.write(meta.port, meta.max_p);
        ared_next_adapt.write(meta.port, next_adapt == 0 || now_us >= next_adapt
                                         ? now_us + meta.interval_us : next_adapt);
    }

    action ared_set_ramp(bit<32> a, bit<32> b) {
        meta.ramp_a = a;
        meta.ramp_b = b;
    }

    /* The ramp fractions over [min_th, 2 max_th): the linear ramp, then gentle's. */
    table ared_ramp {
        key = {
            standard_metadata.egress_spec: exact;
            meta.avg: range;
        }
        actions = { ared_set_ramp; }
        default_action = ared_set_ramp(0, 0);
        size = 16384;
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            ipv4_lpm.apply();
        } else {
            drop();
        }
        if (standard_metadata.egress_spec != DROP_PORT && ared_config.apply().hit) {
            meta.port = (bit<32>) standard_metadata.egress_spec;
            bit<48> now_us = standard_metadata.ingress_global_timestamp;
            red_average.apply(meta.port, meta.port, meta.w_shift, now_us, meta.occupancy,
                              meta.avg);
            ared_adapt();
            ared_ramp.apply();
            meta.p_b = (bit<32>) (((bit<64>) meta.max_p * (bit<64>) meta.ramp_a
                + (PROB_ONE - (bit<64>) meta.max_p) * (bit<64>) meta.ramp_b) >> PROB_BITS);
            red_decision.apply(meta.port, meta.avg, meta.min_th, meta.ramp_end, meta.p_b, 1,
                               meta.verdict);
            red_enqueue.apply(hdr.ipv4.ecn, standard_metadata, meta.port, meta.verdict,
                              meta.limit_pkts, meta.ecn_enabled, meta.admitted);
            queue_sampler.apply(meta.port, 0, meta.occupancy + (bit<32>) meta.admitted,
                                meta.avg, now_us);
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
