/* pie: PIE (RFC 8033, Pan et al.) per egress port, with an ECN option, all in the data
 * plane.
 *
 * PIE drops at enqueue (ingress) with a probability drop_prob that it adjusts every
 * t_update from the queueing delay qdelay:
 *
 *   p = alpha (qdelay - target) + beta (qdelay - qdelay_old), scaled down while drop_prob
 *       is small (RFC 8033 section 4.2: /2048 below 1e-6, /512 below 1e-5, /128 below
 *       1e-4, /32 below 1e-3, /8 below 1e-2, /2 below 1e-1), capped at 2 % once drop_prob
 *       is at least 10 % (section 5.5); drop_prob += p, bounded to [0, 1]; drop_prob
 *       *= 0.98 when qdelay and qdelay_old are both 0; qdelay_old <- qdelay;
 *   burst_allowance -= t_update (down to 0), and back to max_burst when drop_prob is 0
 *       and both delays are below target / 2.
 *
 * An arrival is enqueued without a draw while burst_allowance > 0, while qdelay_old <
 * target / 2 and drop_prob < 20 %, or when at most 2 packets are queued (section 4.1's
 * safeguards); otherwise it is dropped when a random u in [0, 2^32) is below drop_prob.
 * With ECN on, an ECT packet is marked CE instead while drop_prob <= 10 % (mark_ecnth).
 * The hard limit (limit_pkts, include/occupancy.p4) applies last, as in RED.
 *
 * The update runs in the data plane, as ARED's adaptation of max_p does (ared.p4): the
 * first arrival at or after next_update updates drop_prob and sets next_update =
 * now + t_update; the port's first arrival loads burst_allowance = max_burst. So an idle
 * port, which has no arrivals, skips updates (RFC 8033's timer would decay drop_prob
 * meanwhile); the controller takes no part once the entries are in.
 *
 * Queueing delay: the "timestamp" method (RFC 8033 section 5.3; Linux pie with
 * dq_rate_estimator off). Egress records the sojourn time of every departing packet
 * (deq_timedelta, us), or 0 when it leaves the queue empty, in pie_qdelay_us; ingress
 * reads it at the update. v1model gives the sojourn time exactly and for free, where a
 * departure rate estimate would need byte counts over measurement cycles and a division.
 *
 * Fixed point (p4aqm/models/pie.py says the same):
 *   drop_prob, u        bit<32>, in 2^-32 (0xffffffff stands for 1)
 *   alpha, beta         bit<32>, 2^-40 of probability per us of delay (per-second gains
 *                       times 2^40 / 10^6: 0.125 is 137439, 1.25 is 1374390)
 *   target, t_update,   bit<32>, us
 *   max_burst, qdelay,
 *   qdelay_old,
 *   burst_allowance
 *   next_update         bit<48>, us
 * p is (alpha qdelay + beta qdelay) - (alpha target + beta qdelay_old) in 64 bits, taken
 * on the absolute difference and shifted right by 8 plus the scaling's shift (the RFC's
 * divisors are powers of two). With alpha, beta <= 16/s (2^24.1 in this unit) and delays
 * below 2^32 us, each product is below 2^57. The decay multiplies by 64225 / 2^16.
 *
 * State changes in one action per arrival (pie_update: drop_prob, qdelay_old,
 * burst_allowance, next_update); pie_qdelay_us is written only by egress, read only by
 * ingress. pie_u keeps the last draw, so that a decision can be checked from outside.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/headers.p4"

const bit<32> NUM_PORTS = 512;
const bit<32> AQM_CELLS = NUM_PORTS;   /* one cell per port */
const bit<9>  DROP_PORT = 511;

const bit<8>  GAIN_FRAC_BITS = 8;            /* alpha, beta: 2^-(32 + 8) per us */
const bit<64> PROB_MAX = 0xffffffff;         /* drop_prob 1 */
const bit<32> PROB_1E_6 = 4295;              /* round(p 2^32) */
const bit<32> PROB_1E_5 = 42950;
const bit<32> PROB_1E_4 = 429497;
const bit<32> PROB_1E_3 = 4294967;
const bit<32> PROB_1E_2 = 42949673;
const bit<32> PROB_TENTH = 429496730;        /* the 2 % cap from here; mark_ecnth */
const bit<32> PROB_FIFTH = 858993459;
const bit<64> STEP_CAP = 85899346;           /* 2 % */
const bit<64> DECAY = 64225;                 /* 0.98 in 2^-16 */
const bit<8>  DECAY_BITS = 16;
const bit<32> SAFE_QUEUE_PKTS = 2;           /* no drop with at most this many queued */

struct metadata_t {
    bit<1>  admitted;       /* admitted under PIE: egress takes it off the occupancy */
    bit<32> port;
    bit<32> target_us;
    bit<32> t_update_us;
    bit<32> alpha;
    bit<32> beta;
    bit<32> max_burst_us;
    bit<32> limit_pkts;
    bit<1>  ecn_enabled;
    bit<32> drop_prob;      /* after this arrival's update */
    bit<1>  early;
}

#include "include/parser.p4"
#include "include/occupancy.p4"
#include "include/queue_sampler.p4"

register<bit<32>>(NUM_PORTS) pie_drop_prob;        /* 2^-32 */
register<bit<32>>(NUM_PORTS) pie_qdelay_old_us;
register<bit<32>>(NUM_PORTS) pie_burst_allowance_us;
register<bit<48>>(NUM_PORTS) pie_next_update_us;   /* 0 until the port's first arrival */
register<bit<32>>(NUM_PORTS) pie_qdelay_us;        /* the last departure's sojourn */
register<bit<32>>(NUM_PORTS) pie_u;                /* the last arrival's random draw */

control MyIngress(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
#include "include/l3_forward_table.p4"

    OccupancyAdmit() occupancy_admit;
    QueueSampler() queue_sampler;

    counter(NUM_PORTS, CounterType.packets) marks;
    counter(NUM_PORTS, CounterType.packets) early_drops;
    counter(NUM_PORTS, CounterType.packets) overflow_drops;

    action pie_set_params(bit<32> target_us, bit<32> t_update_us, bit<32> alpha,
                          bit<32> beta, bit<32> max_burst_us, bit<32> limit_pkts,
                          bit<1> ecn_enabled) {
        meta.target_us = target_us;
        meta.t_update_us = t_update_us;
        meta.alpha = alpha;
        meta.beta = beta;
        meta.max_burst_us = max_burst_us;
        meta.limit_pkts = limit_pkts;
        meta.ecn_enabled = ecn_enabled;
    }

    /* Ports with an entry run PIE; the others are plain FIFOs of the switch. */
    table pie_config {
        key = { standard_metadata.egress_spec: exact; }
        actions = { pie_set_params; NoAction; }
        default_action = NoAction();
        size = 512;
    }

    /* RFC 8033's calculate_drop_prob, on the first arrival at or after next_update. */
    action pie_update() {
        bit<32> p;
        bit<32> qdelay;
        bit<32> qdelay_old;
        bit<32> burst;
        bit<48> next_update;
        bit<48> now_us = standard_metadata.ingress_global_timestamp;
        pie_drop_prob.read(p, meta.port);
        pie_qdelay_us.read(qdelay, meta.port);
        pie_qdelay_old_us.read(qdelay_old, meta.port);
        pie_burst_allowance_us.read(burst, meta.port);
        pie_next_update_us.read(next_update, meta.port);
        bit<8> shift = GAIN_FRAC_BITS + (p < PROB_1E_6 ? 8w11 : (p < PROB_1E_5 ? 8w9
            : (p < PROB_1E_4 ? 8w7 : (p < PROB_1E_3 ? 8w5 : (p < PROB_1E_2 ? 8w3
            : (p < PROB_TENTH ? 8w1 : 8w0))))));
        bit<64> up = (bit<64>) meta.alpha * (bit<64>) qdelay
                   + (bit<64>) meta.beta * (bit<64>) qdelay;
        bit<64> down = (bit<64>) meta.alpha * (bit<64>) meta.target_us
                     + (bit<64>) meta.beta * (bit<64>) qdelay_old;
        bit<64> rise = up >= down ? (up - down) >> shift : 0;
        bit<64> fall = up < down ? (down - up) >> shift : 0;
        rise = p >= PROB_TENTH && rise > STEP_CAP ? STEP_CAP : rise;
        bit<64> stepped = (bit<64>) p + rise;
        stepped = stepped > PROB_MAX ? PROB_MAX : stepped;
        stepped = fall >= stepped ? 0 : stepped - fall;
        stepped = qdelay == 0 && qdelay_old == 0 ? (stepped * DECAY) >> DECAY_BITS : stepped;
        bit<32> half_target = meta.target_us >> 1;
        bit<32> burst_left = burst > meta.t_update_us ? burst - meta.t_update_us : 0;
        burst_left = stepped == 0 && qdelay < half_target && qdelay_old < half_target
                     ? meta.max_burst_us : burst_left;
        bool first = next_update == 0;
        bool due = !first && now_us >= next_update;
        meta.drop_prob = due ? (bit<32>) stepped : p;
        pie_drop_prob.write(meta.port, meta.drop_prob);
        pie_qdelay_old_us.write(meta.port, due ? qdelay : qdelay_old);
        pie_burst_allowance_us.write(meta.port,
                                     first ? meta.max_burst_us : (due ? burst_left : burst));
        pie_next_update_us.write(meta.port, first || due
                                 ? now_us + (bit<48>) meta.t_update_us : next_update);
    }

    /* RFC 8033's drop_early, with the state as pie_update left it. */
    action pie_drop_early() {
        bit<32> u;
        bit<32> qdelay_old;
        bit<32> burst;
        bit<32> occupancy;
        random(u, 0, 0xffffffff);
        pie_u.write(meta.port, u);
        pie_qdelay_old_us.read(qdelay_old, meta.port);
        pie_burst_allowance_us.read(burst, meta.port);
        aqm_occupancy.read(occupancy, meta.port);
        bool safe = qdelay_old < meta.target_us >> 1 && meta.drop_prob < PROB_FIFTH
                    || occupancy <= SAFE_QUEUE_PKTS;
        meta.early = burst == 0 && !safe && u < meta.drop_prob ? 1w1 : 1w0;
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            ipv4_lpm.apply();
        } else {
            drop();
        }
        if (standard_metadata.egress_spec != DROP_PORT && pie_config.apply().hit) {
            meta.port = (bit<32>) standard_metadata.egress_spec;
            pie_update();
            pie_drop_early();
            bool mark = meta.early == 1 && meta.ecn_enabled == 1
                        && hdr.ipv4.ecn != ECN_NOT_ECT && meta.drop_prob <= PROB_TENTH;
            if (meta.early == 0 || mark) {
                occupancy_admit.apply(meta.port, meta.limit_pkts, meta.admitted);
            }
            if (meta.admitted == 1) {
                if (mark) {
                    hdr.ipv4.ecn = ECN_CE;
                    marks.count(meta.port);
                }
            } else {
                mark_to_drop(standard_metadata);
                if (meta.early == 0 || mark) {
                    overflow_drops.count(meta.port);
                } else {
                    early_drops.count(meta.port);
                }
            }
            bit<32> occupancy;
            aqm_occupancy.read(occupancy, meta.port);
            queue_sampler.apply(meta.port, 0, occupancy, 0,
                                standard_metadata.ingress_global_timestamp);
        }
    }
}

control MyEgress(inout headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    OccupancyDepart() occupancy_depart;

    /* The timestamp method's qdelay: this departure's sojourn, or 0 if the queue is now
     * empty (RFC 8033 section 5.3). */
    action pie_record_qdelay() {
        pie_qdelay_us.write(meta.port, standard_metadata.deq_qdepth == 0
                                       ? 0 : standard_metadata.deq_timedelta);
    }

    apply {
        if (meta.admitted == 1) {
            occupancy_depart.apply(meta.port, standard_metadata.egress_global_timestamp);
            pie_record_qdelay();
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
