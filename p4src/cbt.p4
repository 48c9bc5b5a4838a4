/* cbt: class-based thresholds (Parris, Jeffay, Smith 1999) per egress port.
 *
 * A table the controller fills sorts each packet into TCP, marked non-TCP or unmarked
 * non-TCP on protocol, DSCP, addresses and L4 ports. Each class keeps its own occupancy
 * and weighted average in registers indexed by port * 4 + class; non-TCP arrivals whose
 * class average is above the class threshold are dropped, and the TCP class runs RED
 * on its own average. All classes share one FIFO, with a hard limit on the port's total.
 * p4aqm/models/cbt.py explains the arithmetic, which this program follows exactly.
 *
 * As in red.p4, occupancy is the program's own, since v1model shows queue depth only in
 * egress: ingress adds a packet to its class and port when it admits it, egress takes
 * it off. The packet's class travels to egress in metadata, so both sides use the same
 * slot. Limits: on BMv2, ingress and egress run on different threads and a register
 * update is atomic only inside one action, so counts can be off by the packets in
 * flight between a read and a write; p4aqm's switch runs both on one thread.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/headers.p4"

const bit<32> NUM_PORTS = 512;
const bit<32> NUM_SLOTS = 2048;          /* NUM_PORTS * 4 classes (one spare) */
const bit<9>  DROP_PORT = 511;
const bit<32> COUNT_NONE = 0xffffffff;   /* count = -1: not on the ramp */
const bit<32> Q_R_MAX = 0xffffff;        /* q_r is uniform in [0, 2^24) */

const bit<2> CBT_TCP      = 0;
const bit<2> CBT_MARKED   = 1;
const bit<2> CBT_UNMARKED = 2;

const bit<3> CBT_ENQUEUE   = 0;
const bit<3> CBT_MARK      = 1;
const bit<3> CBT_EARLY     = 2;
const bit<3> CBT_FORCED    = 3;
const bit<3> CBT_THRESHOLD = 4;
const bit<3> CBT_OVERFLOW  = 5;

struct metadata_t {
    bit<1>  cbt_tracked;    /* admitted under CBT: egress must take it off its class */
    bit<2>  cbt_class;
    bit<16> l4_src_port;    /* 0 when the packet has no parsed L4 header */
    bit<16> l4_dst_port;
    bit<8>  w_shift;        /* w_q = 2^-w_shift, for every class */
    bit<32> min_th;         /* TCP's RED thresholds in 2^-16 packets */
    bit<32> ramp_end;
    bit<32> limit_pkts;     /* the port's FIFO, all classes together */
    bit<1>  ecn_enabled;
    bit<32> marked_th;      /* non-TCP class thresholds in 2^-16 packets */
    bit<32> unmarked_th;
    bit<32> port_qlen;
    bit<32> qlen;           /* the arriving packet's class */
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

/* Top level, because ingress and egress both use them. Slot = port * 4 + class. */
register<bit<32>>(NUM_PORTS) cbt_port_qlen;      /* packets of all classes on the port */
register<bit<32>>(NUM_SLOTS) cbt_qlen;           /* packets of the class on the port */
register<bit<32>>(NUM_SLOTS) cbt_avg;            /* in 2^-16 packets */
register<bit<48>>(NUM_SLOTS) cbt_idle_since;     /* when the class last had none queued */
register<bit<32>>(NUM_PORTS) cbt_count;          /* TCP's RED: arrivals since the last mark */
register<bit<32>>(NUM_PORTS) cbt_q_r;            /* TCP's RED: the current random threshold */

#include "include/queue_sampler.p4"

control MyIngress(inout l4_headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
#include "include/l3_forward_table.p4"

    QueueSampler() queue_sampler;

    /* Per slot, so a controller can sample every class's drops and marks. */
    counter(NUM_SLOTS, CounterType.packets) cbt_marks;
    counter(NUM_SLOTS, CounterType.packets) cbt_early_drops;
    counter(NUM_SLOTS, CounterType.packets) cbt_forced_drops;
    counter(NUM_SLOTS, CounterType.packets) cbt_threshold_drops;
    counter(NUM_SLOTS, CounterType.packets) cbt_overflow_drops;

    action cbt_set_params(bit<8> w_shift, bit<32> min_th, bit<32> ramp_end,
                          bit<32> limit_pkts, bit<1> ecn_enabled,
                          bit<32> marked_th, bit<32> unmarked_th) {
        meta.w_shift = w_shift;
        meta.min_th = min_th;
        meta.ramp_end = ramp_end;
        meta.limit_pkts = limit_pkts;
        meta.ecn_enabled = ecn_enabled;
        meta.marked_th = marked_th;
        meta.unmarked_th = unmarked_th;
    }

    /* Ports with an entry run CBT; the others are plain FIFOs of the switch. */
    table cbt_config {
        key = { standard_metadata.egress_spec: exact; }
        actions = { cbt_set_params; NoAction; }
        default_action = NoAction();
        size = 512;
    }

    action cbt_set_class(bit<2> traffic_class) { meta.cbt_class = traffic_class; }

    /* The classifier. Whatever no rule claims is unmarked non-TCP: an unknown sender
     * is not trusted with the marked class's larger share. */
    table cbt_class {
        key = {
            standard_metadata.egress_spec: exact;
            hdr.ipv4.protocol: ternary;
            hdr.ipv4.dscp: ternary;
            hdr.ipv4.src_addr: ternary;
            hdr.ipv4.dst_addr: ternary;
            meta.l4_src_port: ternary;
            meta.l4_dst_port: ternary;
        }
        actions = { cbt_set_class; }
        default_action = cbt_set_class(CBT_UNMARKED);
        size = 4096;
    }

    action cbt_set_p_b(bit<32> p_b) { meta.p_b = p_b; }

    /* TCP's p_b over [min_th, ramp_end): the linear ramp, then gentle's second ramp. */
    table cbt_ramp {
        key = {
            standard_metadata.egress_spec: exact;
            meta.avg: range;
        }
        actions = { cbt_set_p_b; }
        default_action = cbt_set_p_b(0);
        size = 16384;
    }

    action cbt_set_decay(bit<32> decay) { meta.decay = decay; }

    /* (1 - w_q)^m for a class's idle time; past the last range its average is gone. */
    table cbt_decay {
        key = {
            standard_metadata.egress_spec: exact;
            meta.idle_us: range;
        }
        actions = { cbt_set_decay; }
        default_action = cbt_set_decay(0);
        size = 16384;
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            ipv4_lpm.apply();
        } else {
            drop();
        }
        if (standard_metadata.egress_spec != DROP_PORT && cbt_config.apply().hit) {
            /* Classify on metadata, not on hdr.l4, whose fields are undefined when the
             * header is not valid. */
            if (hdr.l4.isValid()) {
                meta.l4_src_port = hdr.l4.src_port;
                meta.l4_dst_port = hdr.l4.dst_port;
            }
            cbt_class.apply();
            bit<32> port = (bit<32>) standard_metadata.egress_spec;
            bit<32> slot = (port << 2) | (bit<32>) meta.cbt_class;
            cbt_port_qlen.read(meta.port_qlen, port);
            cbt_qlen.read(meta.qlen, slot);
            cbt_avg.read(meta.avg, slot);

            /* The class's average, exactly as red.p4 keeps the port's. */
            if (meta.qlen == 0) {
                cbt_idle_since.read(meta.idle_since, slot);
                meta.idle_us = standard_metadata.ingress_global_timestamp - meta.idle_since;
                cbt_decay.apply();
                meta.avg = (bit<32>) (((bit<64>) meta.avg * (bit<64>) meta.decay) >> 16);
            }
            bit<32> target = meta.qlen << 16;
            if (target >= meta.avg) {
                meta.avg = meta.avg + ((target - meta.avg) >> meta.w_shift);
            } else {
                meta.avg = meta.avg - ((meta.avg - target) >> meta.w_shift);
            }

            meta.decision = CBT_ENQUEUE;
            if (meta.cbt_class == CBT_TCP) {
                /* RED, as in red.p4, on the TCP class's average. */
                cbt_count.read(meta.count, port);
                cbt_q_r.read(meta.q_r, port);
                if (meta.avg < meta.min_th) {
                    meta.count = COUNT_NONE;
                } else if (meta.avg >= meta.ramp_end) {
                    meta.count = COUNT_NONE;
                    meta.decision = CBT_FORCED;
                } else {
                    meta.count = meta.count + 1;
                    if (meta.count == 0) {
                        random(meta.q_r, 0, Q_R_MAX);
                    } else {
                        cbt_ramp.apply();
                        if ((bit<64>) meta.count * (bit<64>) meta.p_b >= (bit<64>) meta.q_r) {
                            meta.count = 0;
                            random(meta.q_r, 0, Q_R_MAX);
                            meta.decision = CBT_EARLY;
                        }
                    }
                }
                if (meta.decision != CBT_ENQUEUE && meta.ecn_enabled == 1
                        && hdr.ipv4.ecn != ECN_NOT_ECT) {
                    meta.decision = CBT_MARK;
                }
                cbt_count.write(port, meta.count);
                cbt_q_r.write(port, meta.q_r);
            } else {
                bit<32> threshold = meta.unmarked_th;
                if (meta.cbt_class == CBT_MARKED) {
                    threshold = meta.marked_th;
                }
                if (meta.avg > threshold) {
                    meta.decision = CBT_THRESHOLD;
                }
            }
            /* One FIFO: its limit applies to the port's total, after the class decided. */
            if ((meta.decision == CBT_ENQUEUE || meta.decision == CBT_MARK)
                    && meta.port_qlen >= meta.limit_pkts) {
                meta.decision = CBT_OVERFLOW;
            }

            if (meta.decision == CBT_ENQUEUE || meta.decision == CBT_MARK) {
                meta.qlen = meta.qlen + 1;
                meta.port_qlen = meta.port_qlen + 1;
                meta.cbt_tracked = 1;
                if (meta.decision == CBT_MARK) {
                    hdr.ipv4.ecn = ECN_CE;
                    cbt_marks.count(slot);
                }
            } else {
                mark_to_drop(standard_metadata);
                if (meta.decision == CBT_EARLY) {
                    cbt_early_drops.count(slot);
                } else if (meta.decision == CBT_FORCED) {
                    cbt_forced_drops.count(slot);
                } else if (meta.decision == CBT_THRESHOLD) {
                    cbt_threshold_drops.count(slot);
                } else {
                    cbt_overflow_drops.count(slot);
                }
            }
            cbt_port_qlen.write(port, meta.port_qlen);
            cbt_qlen.write(slot, meta.qlen);
            cbt_avg.write(slot, meta.avg);
            queue_sampler.apply(port, (bit<8>) meta.cbt_class, meta.port_qlen, meta.avg,
                                standard_metadata.ingress_global_timestamp);
        }
    }
}

control MyEgress(inout l4_headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    apply {
        if (meta.cbt_tracked == 1) {
            bit<32> port = (bit<32>) standard_metadata.egress_port;
            bit<32> slot = (port << 2) | (bit<32>) meta.cbt_class;
            bit<32> qlen;
            cbt_qlen.read(qlen, slot);
            /* A count the control plane reset while packets were queued must not wrap. */
            if (qlen != 0) {
                qlen = qlen - 1;
            }
            cbt_qlen.write(slot, qlen);
            if (qlen == 0) {
                cbt_idle_since.write(slot, standard_metadata.egress_global_timestamp);
            }
            bit<32> port_qlen;
            cbt_port_qlen.read(port_qlen, port);
            if (port_qlen != 0) {
                cbt_port_qlen.write(port, port_qlen - 1);
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
