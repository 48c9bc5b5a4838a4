/* fred: FRED, Flow Random Early Drop (Lin and Morris 1997), per egress port.
 *
 * RED's average, count and random threshold per port, as in red.p4, plus a count of
 * queued packets per active flow and a strike count per flow. A flow is the 5-tuple
 * (addresses, protocol, and the TCP or UDP ports, 0 when the packet has none), hashed
 * with crc16 into one of the port's flow slots: a region [slot_base, slot_base +
 * slot_mask] of the flow registers that the control plane assigns. Flows that hash to
 * the same slot share it and are treated as one flow (one qlen, one strike count, one
 * active flow in nactive).
 *
 * On each arrival, with avgcq = max(avg / nactive, 1 packet), the average per-flow share:
 *   1. a flow at max_q (2 while avg >= max_th), or above 2 avgcq while avg >= max_th,
 *      or at avgcq with more than one strike, is dropped and gets a strike;
 *   2. otherwise RED decides on the average, but only flows holding at least
 *      max(min_q, avgcq) packets can be dropped at random on the ramp;
 *   3. the hard limit applies last, as in red.p4.
 * A flow's state is forgotten (qlen 0, strikes 0) when its last packet departs.
 * p4aqm/models/fred.py is the exact arithmetic and the oracle the tests hold this to.
 *
 * As red.p4, ingress counts a packet in when it admits it and egress counts it out;
 * the same limits on BMv2 with its separate ingress and egress threads apply.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/headers.p4"

const bit<32> NUM_PORTS = 512;
const bit<32> FLOW_SLOTS = 65536;        /* shared by every FRED port, in regions */
const bit<9>  DROP_PORT = 511;
const bit<32> COUNT_NONE = 0xffffffff;   /* count = -1: not on the ramp */
const bit<32> Q_R_MAX = 0xffffff;        /* q_r is uniform in [0, 2^24) */
const bit<32> ONE_PKT = 0x10000;         /* one packet in 2^-16 packets */

const bit<3> FRED_ENQUEUE  = 0;
const bit<3> FRED_FLOW     = 1;
const bit<3> FRED_EARLY    = 2;
const bit<3> FRED_FORCED   = 3;
const bit<3> FRED_OVERFLOW = 4;

struct metadata_t {
    bit<1>  fred_tracked;   /* admitted under FRED: egress must take it off the counts */
    bit<8>  w_shift;        /* w_q = 2^-w_shift */
    bit<32> min_th;         /* average thresholds in 2^-16 packets */
    bit<32> max_th;
    bit<32> limit_pkts;
    bit<32> min_q;          /* in 2^-16 packets, compared with the flow's qlen << 16 */
    bit<32> max_q;          /* in packets */
    bit<32> slot_base;
    bit<32> slot_mask;      /* slots per port - 1, a power of two minus one */
    bit<16> src_port;       /* the 5-tuple's ports, 0 for packets without them */
    bit<16> dst_port;
    bit<16> flow_hash;
    bit<32> flow_slot;      /* carried to egress, which counts the packet out of it */
    bit<32> flow_qlen;
    bit<32> strikes;
    bit<32> nactive;
    bit<32> share_recip;    /* 2^16 / nactive, from the control plane */
    bit<32> avgcq;          /* in 2^-16 packets */
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

#include "include/l4_headers.p4"

/* At the top level because ingress and egress both use them. */
register<bit<32>>(NUM_PORTS) fred_qlen;          /* packets admitted and not yet departed */
register<bit<32>>(NUM_PORTS) fred_avg;           /* in 2^-16 packets */
register<bit<32>>(NUM_PORTS) fred_count;         /* arrivals since the last early drop */
register<bit<32>>(NUM_PORTS) fred_q_r;           /* the current random threshold */
register<bit<48>>(NUM_PORTS) fred_idle_since;    /* when the queue last became empty */
register<bit<32>>(NUM_PORTS) fred_nactive;       /* flow slots with packets queued */
register<bit<32>>(FLOW_SLOTS) fred_flow_qlen;    /* packets queued per flow slot */
register<bit<32>>(FLOW_SLOTS) fred_flow_strikes; /* drops at the flow checks, per slot */

#include "include/queue_sampler.p4"

control MyIngress(inout l4_headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
#include "include/l3_forward_table.p4"

    QueueSampler() queue_sampler;

    counter(NUM_PORTS, CounterType.packets) fred_flow_drops;
    counter(NUM_PORTS, CounterType.packets) fred_early_drops;
    counter(NUM_PORTS, CounterType.packets) fred_forced_drops;
    counter(NUM_PORTS, CounterType.packets) fred_overflow_drops;

    action fred_set_params(bit<8> w_shift, bit<32> min_th, bit<32> max_th,
                           bit<32> limit_pkts, bit<32> min_q, bit<32> max_q,
                           bit<32> slot_base, bit<32> slot_mask) {
        meta.w_shift = w_shift;
        meta.min_th = min_th;
        meta.max_th = max_th;
        meta.limit_pkts = limit_pkts;
        meta.min_q = min_q;
        meta.max_q = max_q;
        meta.slot_base = slot_base;
        meta.slot_mask = slot_mask;
    }

    /* Ports with an entry run FRED; the others are plain FIFOs of the switch. */
    table fred_config {
        key = { standard_metadata.egress_spec: exact; }
        actions = { fred_set_params; NoAction; }
        default_action = NoAction();
        size = 512;
    }

    action fred_set_p_b(bit<32> p_b) { meta.p_b = p_b; }

    /* p_b over [min_th, max_th): RED's linear ramp. */
    table fred_ramp {
        key = {
            standard_metadata.egress_spec: exact;
            meta.avg: range;
        }
        actions = { fred_set_p_b; }
        default_action = fred_set_p_b(0);
        size = 16384;
    }

    action fred_set_decay(bit<32> decay) { meta.decay = decay; }

    /* (1 - w_q)^m for the idle time; past the last range the average is gone. */
    table fred_decay {
        key = {
            standard_metadata.egress_spec: exact;
            meta.idle_us: range;
        }
        actions = { fred_set_decay; }
        default_action = fred_set_decay(0);
        size = 16384;
    }

    action fred_set_share(bit<32> recip) { meta.share_recip = recip; }

    /* avg / nactive without dividing: a reciprocal per count of active flows. With no
     * entry (no active flow) the share is the whole average, as in the paper. */
    table fred_share {
        key = {
            standard_metadata.egress_spec: exact;
            meta.nactive: exact;
        }
        actions = { fred_set_share; }
        default_action = fred_set_share(ONE_PKT);
        size = 65536;
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            ipv4_lpm.apply();
        } else {
            drop();
        }
        if (standard_metadata.egress_spec != DROP_PORT && fred_config.apply().hit) {
            bit<32> port = (bit<32>) standard_metadata.egress_spec;
            /* An invalid header's fields have no defined value: hash zeros instead. */
            if (hdr.l4.isValid()) {
                meta.src_port = hdr.l4.src_port;
                meta.dst_port = hdr.l4.dst_port;
            }
            hash(meta.flow_hash, HashAlgorithm.crc16, (bit<16>) 0,
                 { hdr.ipv4.src_addr, hdr.ipv4.dst_addr, hdr.ipv4.protocol,
                   meta.src_port, meta.dst_port },
                 (bit<32>) 65536);
            meta.flow_slot = meta.slot_base + ((bit<32>) meta.flow_hash & meta.slot_mask);

            fred_qlen.read(meta.qlen, port);
            fred_avg.read(meta.avg, port);
            fred_count.read(meta.count, port);
            fred_q_r.read(meta.q_r, port);
            fred_nactive.read(meta.nactive, port);
            fred_flow_qlen.read(meta.flow_qlen, meta.flow_slot);
            fred_flow_strikes.read(meta.strikes, meta.flow_slot);

            /* RED's average, exactly as red.p4 computes it. */
            if (meta.qlen == 0) {
                fred_idle_since.read(meta.idle_since, port);
                meta.idle_us = standard_metadata.ingress_global_timestamp - meta.idle_since;
                fred_decay.apply();
                meta.avg = (bit<32>) (((bit<64>) meta.avg * (bit<64>) meta.decay) >> 16);
            }
            bit<32> target = meta.qlen << 16;
            if (target >= meta.avg) {
                meta.avg = meta.avg + ((target - meta.avg) >> meta.w_shift);
            } else {
                meta.avg = meta.avg - ((meta.avg - target) >> meta.w_shift);
            }

            fred_share.apply();
            meta.avgcq = (bit<32>) (((bit<64>) meta.avg * (bit<64>) meta.share_recip) >> 16);
            if (meta.avgcq < ONE_PKT) {
                meta.avgcq = ONE_PKT;
            }
            bit<32> flow_q = meta.flow_qlen << 16;
            bit<32> max_q = meta.max_q;
            if (meta.avg >= meta.max_th) {
                max_q = 2;   /* the paper's max_q in drop-tail mode */
            }

            meta.decision = FRED_ENQUEUE;
            if (meta.flow_qlen >= max_q
                    || (meta.avg >= meta.max_th && flow_q > meta.avgcq << 1)
                    || (flow_q >= meta.avgcq && meta.strikes > 1)) {
                /* A flow that is not responding: drop it before RED is asked. */
                meta.strikes = meta.strikes + 1;
                meta.decision = FRED_FLOW;
            } else if (meta.avg < meta.min_th) {
                meta.count = COUNT_NONE;
            } else if (meta.avg >= meta.max_th) {
                meta.count = COUNT_NONE;
                meta.decision = FRED_FORCED;
            } else {
                meta.count = meta.count + 1;
                if (meta.count == 0) {
                    random(meta.q_r, 0, Q_R_MAX);
                } else if (flow_q >= meta.min_q && flow_q >= meta.avgcq) {
                    /* Only flows holding more than min_q and their share are dropped
                     * at random; fragile flows below that pass, and count still
                     * counts them, as in the paper. */
                    fred_ramp.apply();
                    if ((bit<64>) meta.count * (bit<64>) meta.p_b >= (bit<64>) meta.q_r) {
                        meta.count = 0;
                        random(meta.q_r, 0, Q_R_MAX);
                        meta.decision = FRED_EARLY;
                    }
                }
            }
            if (meta.decision == FRED_ENQUEUE && meta.qlen >= meta.limit_pkts) {
                meta.decision = FRED_OVERFLOW;
            }

            if (meta.decision == FRED_ENQUEUE) {
                if (meta.flow_qlen == 0) {
                    meta.nactive = meta.nactive + 1;
                }
                meta.flow_qlen = meta.flow_qlen + 1;
                meta.qlen = meta.qlen + 1;
                meta.fred_tracked = 1;
            } else {
                mark_to_drop(standard_metadata);
                if (meta.decision == FRED_FLOW) {
                    fred_flow_drops.count(port);
                } else if (meta.decision == FRED_EARLY) {
                    fred_early_drops.count(port);
                } else if (meta.decision == FRED_FORCED) {
                    fred_forced_drops.count(port);
                } else {
                    fred_overflow_drops.count(port);
                }
            }
            fred_qlen.write(port, meta.qlen);
            fred_avg.write(port, meta.avg);
            queue_sampler.apply(port, 0, meta.qlen, meta.avg,
                                standard_metadata.ingress_global_timestamp);
            fred_count.write(port, meta.count);
            fred_q_r.write(port, meta.q_r);
            fred_nactive.write(port, meta.nactive);
            fred_flow_qlen.write(meta.flow_slot, meta.flow_qlen);
            fred_flow_strikes.write(meta.flow_slot, meta.strikes);
        }
    }
}

control MyEgress(inout l4_headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    apply {
        if (meta.fred_tracked == 1) {
            bit<32> port = (bit<32>) standard_metadata.egress_port;
            bit<32> qlen;
            fred_qlen.read(qlen, port);
            /* A count the control plane reset while packets were queued must not wrap. */
            if (qlen != 0) {
                qlen = qlen - 1;
            }
            fred_qlen.write(port, qlen);
            if (qlen == 0) {
                fred_idle_since.write(port, standard_metadata.egress_global_timestamp);
            }
            bit<32> flow_qlen;
            fred_flow_qlen.read(flow_qlen, meta.flow_slot);
            if (flow_qlen != 0) {
                flow_qlen = flow_qlen - 1;
            }
            fred_flow_qlen.write(meta.flow_slot, flow_qlen);
            if (flow_qlen == 0) {
                /* The flow's last packet left: forget it, strikes too, as the paper
                 * deletes the flow's state. */
                fred_flow_strikes.write(meta.flow_slot, 0);
                bit<32> nactive;
                fred_nactive.read(nactive, port);
                if (nactive != 0) {
                    fred_nactive.write(port, nactive - 1);
                }
            }
        }
    }
}

V1Switch(
    L4Parser(),
    L4VerifyChecksum(),
    MyIngress(),
    MyEgress(),
    L4ComputeChecksum(),
    L4Deparser()
) main;
