/* red: RED (Floyd and Jacobson 1993) per egress port, with gentle and ECN options.
 *
 * RED decides when a packet arrives, but v1model shows queue depth only in egress. So
 * the program keeps its own occupancy per port in a register: ingress adds a packet
 * when it admits one, egress removes it when it leaves the queue. The average, count
 * and random threshold live in registers beside it, and every parameter comes from
 * the control plane (p4aqm/models/red.py explains the arithmetic, which this program
 * follows exactly; the controller fills the tables from RED's parameters).
 *
 * Limits: on BMv2, ingress and egress run on different threads and a register update
 * is atomic only inside one action, so qlen can be off by the packets in flight
 * between a read and a write; p4aqm's switch runs both on one thread.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/headers.p4"

const bit<32> NUM_PORTS = 512;
const bit<9>  DROP_PORT = 511;
const bit<32> COUNT_NONE = 0xffffffff;   /* count = -1: not on the ramp */
const bit<32> Q_R_MAX = 0xffffff;        /* q_r is uniform in [0, 2^24) */

const bit<3> RED_ENQUEUE  = 0;
const bit<3> RED_MARK     = 1;
const bit<3> RED_EARLY    = 2;
const bit<3> RED_FORCED   = 3;
const bit<3> RED_OVERFLOW = 4;

struct metadata_t {
    bit<1>  red_tracked;    /* admitted under RED: egress must take it off qlen */
    bit<8>  w_shift;        /* w_q = 2^-w_shift */
    bit<32> min_th;         /* average thresholds in 2^-16 packets */
    bit<32> ramp_end;
    bit<32> limit_pkts;
    bit<1>  ecn_enabled;
    bit<32> qlen;
    bit<32> avg;
    bit<32> count;
    bit<32> q_r;
    bit<32> p_b;            /* probability in 2^-24 */
    bit<48> idle_since;
    bit<48> idle_us;
    bit<32> decay;          /* (1 - w_q)^m in 2^-16 */
    bit<3>  decision;
}

#include "include/parser.p4"

/* Per-port RED state, at the top level because ingress and egress both use it. */
register<bit<32>>(NUM_PORTS) red_qlen;         /* packets admitted and not yet departed */
register<bit<32>>(NUM_PORTS) red_avg;          /* in 2^-16 packets */
register<bit<32>>(NUM_PORTS) red_count;        /* arrivals since the last mark */
register<bit<32>>(NUM_PORTS) red_q_r;          /* the current random threshold */
register<bit<48>>(NUM_PORTS) red_idle_since;   /* when the queue last became empty */

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

    action red_set_p_b(bit<32> p_b) { meta.p_b = p_b; }

    /* p_b over [min_th, ramp_end): the linear ramp, then gentle's second ramp. */
    table red_ramp {
        key = {
            standard_metadata.egress_spec: exact;
            meta.avg: range;
        }
        actions = { red_set_p_b; }
        default_action = red_set_p_b(0);
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
        if (standard_metadata.egress_spec != DROP_PORT && red_config.apply().hit) {
            bit<32> port = (bit<32>) standard_metadata.egress_spec;
            red_qlen.read(meta.qlen, port);
            red_avg.read(meta.avg, port);
            red_count.read(meta.count, port);
            red_q_r.read(meta.q_r, port);

            if (meta.qlen == 0) {
                red_idle_since.read(meta.idle_since, port);
                meta.idle_us = standard_metadata.ingress_global_timestamp - meta.idle_since;
                red_decay.apply();
                meta.avg = (bit<32>) (((bit<64>) meta.avg * (bit<64>) meta.decay) >> 16);
            }
            bit<32> target = meta.qlen << 16;
            if (target >= meta.avg) {
                meta.avg = meta.avg + ((target - meta.avg) >> meta.w_shift);
            } else {
                meta.avg = meta.avg - ((meta.avg - target) >> meta.w_shift);
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
                    red_ramp.apply();
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
