/* The RED core (Floyd and Jacobson 1993) that red, ared, cbt and fred share: the average
 * with its idle decay, and the count and random threshold that space the marks evenly.
 * p4aqm/models/red.py is the same arithmetic in Python, and the oracle the tests hold
 * these controls to; include/fixed_point.p4 gives the units.
 *
 * State is per cell, as the occupancy is (include/occupancy.p4): a port, or CBT's class
 * on a port. Every register below changes in exactly one action, read and written there,
 * so the switch's action-level locking makes each update atomic against egress and the
 * control plane. Actions hold no conditionals (p4c's BMv2 back end predicates them
 * poorly); choices inside an action are ?: expressions.
 *
 * Define AQM_CELLS and NUM_PORTS (bit<32>) before including this file.
 */
#ifndef P4AQM_RED_CORE_P4
#define P4AQM_RED_CORE_P4

#include "fixed_point.p4"
#include "occupancy.p4"

/* What RED decided for an arrival, before ECN and the hard limit. */
const bit<2> RED_ENQUEUE = 0;
const bit<2> RED_EARLY   = 1;   /* a probabilistic mark on the ramp */
const bit<2> RED_FORCED  = 2;   /* the average is past the ramp */

register<bit<32>>(AQM_CELLS) red_avg;     /* in 2^-AVG_FRAC_BITS packets */
register<bit<32>>(AQM_CELLS) red_count;   /* arrivals since the last mark; COUNT_NONE off the ramp */
register<bit<32>>(AQM_CELLS) red_q_r;     /* the current random threshold */

/* The cell's occupancy at this arrival, and its average updated by the arrival: first
 * (1 - w_q)^m for the time the cell was idle, from the port's decay table, then the
 * EWMA step towards the occupancy. */
control RedAverage(in bit<32> port, in bit<32> cell, in bit<8> w_shift, in bit<48> now_us,
                   out bit<32> occupancy, out bit<32> avg) {
    bit<48> idle_us = 0;
    bit<32> decay_factor = DECAY_ONE;

    /* One action, so that the occupancy and the idle time are of one instant. */
    action red_read_occupancy() {
        bit<48> since;
        aqm_occupancy.read(occupancy, cell);
        aqm_idle_since.read(since, cell);
        idle_us = now_us - since;
    }

    action set_decay(bit<32> decay) { decay_factor = decay; }

    /* (1 - w_q)^m over idle time; past the last range the average is gone. */
    table idle_decay {
        key = {
            port: exact;
            idle_us: range;
        }
        actions = { set_decay; }
        default_action = set_decay(0);
        size = 16384;
    }

    action red_update_avg() {
        bit<32> old;
        red_avg.read(old, cell);
        bit<32> decayed = (bit<32>) (((bit<64>) old * (bit<64>) decay_factor) >> DECAY_BITS);
        bit<32> target = occupancy << AVG_FRAC_BITS;
        avg = target >= decayed ? decayed + ((target - decayed) >> w_shift)
                                : decayed - ((decayed - target) >> w_shift);
        red_avg.write(cell, avg);
    }

    apply {
        red_read_occupancy();
        if (occupancy == 0) {
            idle_decay.apply();
        }
        red_update_avg();
    }
}

/* p_b over [min_th, ramp_end) from the port's ramp table: the linear ramp, then, with
 * gentle, the second ramp from max_p to 1. */
control RedRamp(in bit<32> port, in bit<32> avg, out bit<32> ramp_p_b) {
    action set_p_b(bit<32> p_b) { ramp_p_b = p_b; }

    table ramp {
        key = {
            port: exact;
            avg: range;
        }
        actions = { set_p_b; }
        default_action = set_p_b(0);
        size = 16384;
    }

    apply { ramp.apply(); }
}

/* RED's decision on the cell's updated average. Below min_th, or past ramp_end (a forced
 * mark), count becomes -1. On the ramp count counts the arrivals since the last mark, and
 * an arrival is marked when count * p_b >= q_r; q_r is drawn anew when count starts at 0
 * and after each mark: Linux's even spacing of marks (include/net/red.h), the effect of
 * p_a = p_b / (1 - count p_b) without a division. may_mark = 0 counts the arrival but
 * never marks it (FRED's fragile flows). */
control RedDecision(in bit<32> cell, in bit<32> avg, in bit<32> min_th, in bit<32> ramp_end,
                    in bit<32> p_b, in bit<1> may_mark, out bit<2> verdict) {
    bit<1> early = 0;

    action red_leave_ramp() { red_count.write(cell, COUNT_NONE); }

    /* random() runs on every arrival on the ramp, since an action has no conditional;
     * its value is kept only where a new q_r is due, which is where the model draws. */
    action red_on_ramp() {
        bit<32> count;
        bit<32> q_r;
        bit<32> fresh;
        red_count.read(count, cell);
        red_q_r.read(q_r, cell);
        random(fresh, 0, Q_R_MAX);
        count = count + 1;
        early = count != 0 && may_mark == 1
                && (bit<64>) count * (bit<64>) p_b >= (bit<64>) q_r ? 1w1 : 1w0;
        red_q_r.write(cell, count == 0 || early == 1 ? fresh : q_r);
        red_count.write(cell, early == 1 ? 0 : count);
    }

    apply {
        verdict = RED_ENQUEUE;
        if (avg < min_th) {
            red_leave_ramp();
        } else if (avg >= ramp_end) {
            red_leave_ramp();
            verdict = RED_FORCED;
        } else {
            red_on_ramp();
            if (early == 1) {
                verdict = RED_EARLY;
            }
        }
    }
}

/* The arrival's fate once RED decided, for red and ared: with ECN on, a mark on an ECT
 * packet sets CE instead of dropping it; the hard limit applies last, as in ns-2 and
 * Linux; every outcome is counted per port. */
control RedEnqueue(inout bit<2> ecn, inout standard_metadata_t standard_metadata,
                   in bit<32> port, in bit<2> verdict, in bit<32> limit_pkts,
                   in bit<1> ecn_enabled, out bit<1> admitted) {
    counter(NUM_PORTS, CounterType.packets) marks;
    counter(NUM_PORTS, CounterType.packets) early_drops;
    counter(NUM_PORTS, CounterType.packets) forced_drops;
    counter(NUM_PORTS, CounterType.packets) overflow_drops;

    OccupancyAdmit() occupancy_admit;

    apply {
        admitted = 0;
        bool mark = verdict != RED_ENQUEUE && ecn_enabled == 1 && ecn != ECN_NOT_ECT;
        if (verdict == RED_ENQUEUE || mark) {
            occupancy_admit.apply(port, limit_pkts, admitted);
        }
        if (admitted == 1) {
            if (mark) {
                ecn = ECN_CE;
                marks.count(port);
            }
        } else {
            mark_to_drop(standard_metadata);
            if (verdict == RED_ENQUEUE || mark) {
                overflow_drops.count(port);
            } else if (verdict == RED_EARLY) {
                early_drops.count(port);
            } else {
                forced_drops.count(port);
            }
        }
    }
}

#endif
