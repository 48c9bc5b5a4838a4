/* ared: Adaptive RED (Floyd, Gummadi and Shenker 2001) per egress port, with ECN option.
 *
 * This is red.p4 with gentle on, and with max_p in a per-port register that the data
 * plane adapts itself: a second register holds the time of the next adaptation, and
 * the first arrival at or after it moves max_p towards the target band (additive
 * increase, multiplicative decrease) and sets the next one an interval later.
 * p4aqm/models/ared.py explains the arithmetic, which this program follows exactly.
 *
 * Because max_p changes in the data plane, the ramp table cannot hold p_b: it holds
 * two fractions a and b of the ramp, and p_b = (max_p a + (1 - max_p) b) in 2^-24.
 *
 * RED's state keeps RED's register and counter names, so tools that read RED's
 * average, queue and decisions read ARED's the same way; ared_max_p and
 * ared_next_adapt are the two registers ARED adds. The limits of red.p4 on BMv2's
 * threads apply here too.
 *
 * Verified: tests/aqm/test_ared_exact.py runs this program and the model side by side
 * over 100,000 packets in virtual time and compares max_p, the next adaptation time
 * and RED's state after every packet, through hundreds of increases and decreases;
 * ptf-tests/ared.py reads max_p over P4Runtime after real traffic on veths and checks
 * that it is the model's iterate, up under overload and down under underload.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/headers.p4"

const bit<32> NUM_PORTS = 512;
const bit<9>  DROP_PORT = 511;
const bit<32> COUNT_NONE = 0xffffffff;   /* count = -1: not on the ramp */
const bit<32> Q_R_MAX = 0xffffff;        /* q_r is uniform in [0, 2^24) */
const bit<64> PROB_ONE = 0x1000000;      /* probability 1 in 2^-24 */

const bit<3> RED_ENQUEUE  = 0;
const bit<3> RED_MARK     = 1;
const bit<3> RED_EARLY    = 2;
const bit<3> RED_FORCED   = 3;
const bit<3> RED_OVERFLOW = 4;

struct metadata_t {
    bit<1>  red_tracked;    /* admitted under ARED: egress must take it off qlen */
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
    bit<32> beta;           /* the decrease factor in 2^-16 */
    bit<32> qlen;
    bit<32> avg;
    bit<32> count;
    bit<32> q_r;
    bit<32> max_p;
    bit<48> next_adapt;
    bit<32> ramp_a;         /* ramp fractions in 2^-24 */
    bit<32> ramp_b;
    bit<32> p_b;            /* probability in 2^-24 */
    bit<48> idle_since;
    bit<48> idle_us;
    bit<32> decay;          /* (1 - w_q)^m in 2^-16 */
    bit<3>  decision;
}

#include "include/parser.p4"

/* Per-port state, at the top level because ingress and egress both use it. */
register<bit<32>>(NUM_PORTS) red_qlen;         /* packets admitted and not yet departed */
register<bit<32>>(NUM_PORTS) red_avg;          /* in 2^-16 packets */
register<bit<32>>(NUM_PORTS) red_count;        /* arrivals since the last mark */
register<bit<32>>(NUM_PORTS) red_q_r;          /* the current random threshold */
register<bit<48>>(NUM_PORTS) red_idle_since;   /* when the queue last became empty */
register<bit<32>>(NUM_PORTS) ared_max_p;       /* in 2^-24 */
register<bit<48>>(NUM_PORTS) ared_next_adapt;  /* us; 0 until the port's first arrival */

#include "include/queue_sampler.p4"

control MyIngress(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
#include "include/l3_forward_table.p4"

    QueueSampler() queue_sampler;

    counter(NUM_PORTS, CounterType.packets) red_marks;
    counter(NUM_PORTS, CounterType.packets) red_early_drops;
    counter(NUM_PORTS, CounterType.packets) red_forced_drops;
    counter(NUM_PORTS, CounterType.packets) red_overflow_drops;

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

    action red_set_decay(bit<32> decay) { meta.decay = decay; }

    /* (1 - w_q)^m for the idle time; past the last range the average is gone. */
    table red_decay {
        key = {
            standard_metadata.egress_spec: exact;
            meta.idle_us: range;
        }
        actions = { red_set_decay; }
        default_action = red_set_decay(0);
        size = 16384;
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            ipv4_lpm.apply();
        } else {
            drop();
        }
        if (standard_metadata.egress_spec != DROP_PORT && ared_config.apply().hit) {
            bit<32> port = (bit<32>) standard_metadata.egress_spec;
            bit<48> now = standard_metadata.ingress_global_timestamp;
            red_qlen.read(meta.qlen, port);
            red_avg.read(meta.avg, port);
            red_count.read(meta.count, port);
            red_q_r.read(meta.q_r, port);
            ared_max_p.read(meta.max_p, port);
            ared_next_adapt.read(meta.next_adapt, port);

            if (meta.qlen == 0) {
                red_idle_since.read(meta.idle_since, port);
                meta.idle_us = now - meta.idle_since;
                red_decay.apply();
                meta.avg = (bit<32>) (((bit<64>) meta.avg * (bit<64>) meta.decay) >> 16);
            }
            bit<32> target = meta.qlen << 16;
            if (target >= meta.avg) {
                meta.avg = meta.avg + ((target - meta.avg) >> meta.w_shift);
            } else {
                meta.avg = meta.avg - ((meta.avg - target) >> meta.w_shift);
            }

            /* Adapt after the average is updated, so it sees any idle decay first. */
            if (meta.next_adapt == 0) {
                meta.max_p = meta.max_p_init;
                meta.next_adapt = now + meta.interval_us;
            } else if (now >= meta.next_adapt) {
                if (meta.avg > meta.band_high && meta.max_p <= meta.max_p_top) {
                    bit<32> quarter = meta.max_p >> 2;
                    if (quarter < meta.alpha) {
                        meta.max_p = meta.max_p + quarter;
                    } else {
                        meta.max_p = meta.max_p + meta.alpha;
                    }
                } else if (meta.avg < meta.band_low && meta.max_p >= meta.max_p_bottom) {
                    meta.max_p = (bit<32>) (((bit<64>) meta.max_p * (bit<64>) meta.beta) >> 16);
                }
                meta.next_adapt = now + meta.interval_us;
            }

            meta.decision = RED_ENQUEUE;
            if (meta.avg < meta.min_th) {
                meta.count = COUNT_NONE;
            } else if (meta.avg >= meta.ramp_end) {
                meta.count = COUNT_NONE;
                meta.decision = RED_FORCED;
            } else {
                meta.count = meta.count + 1;
                if (meta.count == 0) {
                    random(meta.q_r, 0, Q_R_MAX);
                } else {
                    ared_ramp.apply();
                    meta.p_b = (bit<32>) (((bit<64>) meta.max_p * (bit<64>) meta.ramp_a
                        + (PROB_ONE - (bit<64>) meta.max_p) * (bit<64>) meta.ramp_b) >> 24);
                    if ((bit<64>) meta.count * (bit<64>) meta.p_b >= (bit<64>) meta.q_r) {
                        meta.count = 0;
                        random(meta.q_r, 0, Q_R_MAX);
                        meta.decision = RED_EARLY;
                    }
                }
            }
            if (meta.decision != RED_ENQUEUE && meta.ecn_enabled == 1
                    && hdr.ipv4.ecn != ECN_NOT_ECT) {
                meta.decision = RED_MARK;
            }
            /* As in ns-2 and Linux, the hard limit applies after RED has decided. */
            if ((meta.decision == RED_ENQUEUE || meta.decision == RED_MARK)
                    && meta.qlen >= meta.limit_pkts) {
                meta.decision = RED_OVERFLOW;
            }

            if (meta.decision == RED_ENQUEUE || meta.decision == RED_MARK) {
                meta.qlen = meta.qlen + 1;
                meta.red_tracked = 1;
                if (meta.decision == RED_MARK) {
                    hdr.ipv4.ecn = ECN_CE;
                    red_marks.count(port);
                }
            } else {
                mark_to_drop(standard_metadata);
                if (meta.decision == RED_EARLY) {
                    red_early_drops.count(port);
                } else if (meta.decision == RED_FORCED) {
                    red_forced_drops.count(port);
                } else {
                    red_overflow_drops.count(port);
                }
            }
            red_qlen.write(port, meta.qlen);
            red_avg.write(port, meta.avg);
            red_count.write(port, meta.count);
            red_q_r.write(port, meta.q_r);
            queue_sampler.apply(port, 0, meta.qlen, meta.avg,
                                standard_metadata.ingress_global_timestamp);
            ared_max_p.write(port, meta.max_p);
            ared_next_adapt.write(port, meta.next_adapt);
        }
    }
}

control MyEgress(inout headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    apply {
        if (meta.red_tracked == 1) {
            bit<32> port = (bit<32>) standard_metadata.egress_port;
            bit<32> qlen;
            red_qlen.read(qlen, port);
            /* A count the control plane reset while packets were queued must not wrap. */
            if (qlen != 0) {
                qlen = qlen - 1;
            }
            red_qlen.write(port, qlen);
            if (qlen == 0) {
                red_idle_since.write(port, standard_metadata.egress_global_timestamp);
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
