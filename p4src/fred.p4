/* fred: FRED, Flow Random Early Drop (Lin and Morris 1997), per egress port.
 *
 * The RED core (include/red_core.p4) per port, plus a count of queued packets per active
 * flow and a strike count per flow. A flow is the 5-tuple (addresses, protocol, and the
 * TCP or UDP ports, 0 when the packet has none), hashed with crc16 into one of the port's
 * flow slots: a region [slot_base, slot_base + slot_mask] of the flow registers that the
 * control plane assigns. Flows that hash to the same slot share it and are treated as one
 * flow (one occupancy, one strike count, one active flow in nactive).
 *
 * On each arrival, with avgcq = max(avg / nactive, 1 packet), the average per-flow share:
 *   1. a flow at max_q (2 while avg >= max_th), or above 2 avgcq while avg >= max_th,
 *      or at avgcq with more than one strike, is dropped and gets a strike;
 *   2. otherwise RED decides on the average, but only flows holding at least
 *      max(min_q, avgcq) packets can be dropped at random on the ramp;
 *   3. the hard limit applies last, as in red.p4.
 * A flow's state is forgotten (occupancy 0, strikes 0) when its last packet departs.
 * p4aqm/models/fred.py is the exact arithmetic and the oracle the tests hold this to.
 *
 * The flow checks read a snapshot of the flow's counts; every count then changes in one
 * action (admission, a strike, a departure), which the switch runs atomically against
 * the other thread (include/occupancy.p4 says why that matters).
 */
#include <core.p4>
#include <v1model.p4>
#include "include/headers.p4"

const bit<32> NUM_PORTS = 512;
const bit<32> AQM_CELLS = NUM_PORTS;     /* one cell per port */
const bit<32> FLOW_SLOTS = 65536;        /* shared by every FRED port, in regions */
const bit<9>  DROP_PORT = 511;
const bit<32> DROP_TAIL_MAX_Q = 2;       /* the paper's max_q while avg >= max_th */

struct metadata_t {
    bit<1>  admitted;       /* admitted under FRED: egress takes it off the counts */
    bit<32> port;
    bit<8>  w_shift;        /* w_q = 2^-w_shift */
    bit<32> min_th;         /* average thresholds in 2^-16 packets */
    bit<32> max_th;
    bit<32> limit_pkts;
    bit<32> min_q;          /* in 2^-16 packets, compared with the flow's occupancy << 16 */
    bit<32> max_q;          /* in packets */
    bit<32> slot_base;
    bit<32> slot_mask;      /* slots per port - 1, a power of two minus one */
    bit<16> src_port;       /* the 5-tuple's ports, 0 for packets without them */
    bit<16> dst_port;
    bit<16> flow_hash;
    bit<32> flow_slot;      /* carried to egress, which counts the packet out of it */
    bit<32> flow_occupancy; /* the flow's packets, before this arrival */
    bit<32> strikes;
    bit<32> nactive;
    bit<32> share_recip;    /* 2^16 / nactive, from the control plane */
    bit<32> avgcq;          /* in 2^-16 packets */
    bit<32> occupancy;      /* the port's packets, before this arrival */
    bit<32> avg;
    bit<32> p_b;            /* probability in 2^-24 */
    bit<2>  verdict;
}

#include "include/l4_headers.p4"
#include "include/red_core.p4"
#include "include/queue_sampler.p4"

register<bit<32>>(NUM_PORTS) fred_nactive;           /* flow slots with packets queued */
register<bit<32>>(FLOW_SLOTS) fred_flow_occupancy;   /* packets queued per flow slot */
register<bit<32>>(FLOW_SLOTS) fred_flow_strikes;     /* drops at the flow checks, per slot */

control MyIngress(inout l4_headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
#include "include/l3_forward_table.p4"

    RedAverage() red_average;
    RedRamp() red_ramp;
    RedDecision() red_decision;
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

    /* The flow checks' inputs, of one instant. */
    action fred_read_flow() {
        fred_flow_occupancy.read(meta.flow_occupancy, meta.flow_slot);
        fred_flow_strikes.read(meta.strikes, meta.flow_slot);
        fred_nactive.read(meta.nactive, meta.port);
    }

    action fred_strike() {
        bit<32> strikes;
        fred_flow_strikes.read(strikes, meta.flow_slot);
        fred_flow_strikes.write(meta.flow_slot, strikes + 1);
    }

    /* The limit test and every count the packet joins, in one action. */
    action fred_admit() {
        bit<32> held;
        bit<32> flow_held;
        bit<32> active;
        aqm_occupancy.read(held, meta.port);
        fred_flow_occupancy.read(flow_held, meta.flow_slot);
        fred_nactive.read(active, meta.port);
        meta.admitted = held < meta.limit_pkts ? 1w1 : 1w0;
        aqm_occupancy.write(meta.port, held + (bit<32>) meta.admitted);
        fred_flow_occupancy.write(meta.flow_slot, flow_held + (bit<32>) meta.admitted);
        fred_nactive.write(meta.port, meta.admitted == 1 && flow_held == 0 ? active + 1
                                                                            : active);
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            ipv4_lpm.apply();
        } else {
            drop();
        }
        if (standard_metadata.egress_spec != DROP_PORT && fred_config.apply().hit) {
            meta.port = (bit<32>) standard_metadata.egress_spec;
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

            red_average.apply(meta.port, meta.port, meta.w_shift,
                              standard_metadata.ingress_global_timestamp, meta.occupancy,
                              meta.avg);
            fred_read_flow();
            fred_share.apply();
            meta.avgcq = (bit<32>) (((bit<64>) meta.avg * (bit<64>) meta.share_recip)
                                    >> AVG_FRAC_BITS);
            if (meta.avgcq < ONE_PKT) {
                meta.avgcq = ONE_PKT;
            }
            bit<32> flow_q = meta.flow_occupancy << AVG_FRAC_BITS;
            bit<32> max_q = meta.max_q;
            if (meta.avg >= meta.max_th) {
                max_q = DROP_TAIL_MAX_Q;
            }

            bool flow_drop = false;
            if (meta.flow_occupancy >= max_q
                    || (meta.avg >= meta.max_th && flow_q > meta.avgcq << 1)
                    || (flow_q >= meta.avgcq && meta.strikes > 1)) {
                /* A flow that is not responding: drop it before RED is asked. */
                flow_drop = true;
                fred_strike();
            } else {
                /* Only flows holding more than min_q and their share are dropped at
                 * random; fragile flows below that pass, and count still counts them,
                 * as in the paper. */
                bit<1> robust = 0;
                if (flow_q >= meta.min_q && flow_q >= meta.avgcq) {
                    robust = 1;
                }
                red_ramp.apply(meta.port, meta.avg, meta.p_b);
                red_decision.apply(meta.port, meta.avg, meta.min_th, meta.max_th, meta.p_b,
                                   robust, meta.verdict);
                if (meta.verdict == RED_ENQUEUE) {
                    fred_admit();
                }
            }

            if (meta.admitted == 0) {
                mark_to_drop(standard_metadata);
                if (flow_drop) {
                    fred_flow_drops.count(meta.port);
                } else if (meta.verdict == RED_EARLY) {
                    fred_early_drops.count(meta.port);
                } else if (meta.verdict == RED_FORCED) {
                    fred_forced_drops.count(meta.port);
                } else {
                    fred_overflow_drops.count(meta.port);
                }
            }
            queue_sampler.apply(meta.port, 0, meta.occupancy + (bit<32>) meta.admitted,
                                meta.avg, standard_metadata.ingress_global_timestamp);
        }
    }
}

control MyEgress(inout l4_headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    OccupancyDepart() occupancy_depart;

    /* The flow's count, its strikes and nactive, in one action. The flow's last packet
     * leaving forgets it, strikes too, as the paper deletes the flow's state. */
    action fred_flow_depart() {
        bit<32> flow_held;
        bit<32> strikes;
        bit<32> active;
        bit<32> port = (bit<32>) standard_metadata.egress_port;
        fred_flow_occupancy.read(flow_held, meta.flow_slot);
        fred_flow_strikes.read(strikes, meta.flow_slot);
        fred_nactive.read(active, port);
        /* A count the control plane reset while packets were queued must not wrap. */
        flow_held = flow_held == 0 ? 0 : flow_held - 1;
        fred_flow_occupancy.write(meta.flow_slot, flow_held);
        fred_flow_strikes.write(meta.flow_slot, flow_held == 0 ? 0 : strikes);
        fred_nactive.write(port, flow_held == 0 && active != 0 ? active - 1 : active);
    }

    apply {
        if (meta.admitted == 1) {
            occupancy_depart.apply((bit<32>) standard_metadata.egress_port,
                                   standard_metadata.egress_global_timestamp);
            fred_flow_depart();
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
