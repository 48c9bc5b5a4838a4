/* cbt: class-based thresholds (Parris, Jeffay, Smith 1999) per egress port.
 *
 * A table the controller fills sorts each packet into TCP, marked non-TCP or unmarked
 * non-TCP on protocol, DSCP, addresses and L4 ports. Each class is a cell of the RED core
 * (include/red_core.p4) with its own occupancy and weighted average, at cell port * 4 +
 * class; cell port * 4 + 3 holds the port's total, since all classes share one FIFO with
 * a hard limit on the total. Non-TCP arrivals whose class average is above the class
 * threshold are dropped; the TCP class runs RED on its own average.
 * p4aqm/models/cbt.py explains the arithmetic, which this program follows exactly.
 *
 * The packet's class travels to egress in metadata, so both sides use the same cell. An
 * admission changes the class's and the port's occupancy in one action, so the limit test
 * and both counts are atomic against egress (include/occupancy.p4 says why that matters).
 */
#include <core.p4>
#include <v1model.p4>
#include "include/headers.p4"

const bit<32> NUM_PORTS = 512;
const bit<32> AQM_CELLS = 2048;          /* NUM_PORTS * 4: three classes and the total */
const bit<9>  DROP_PORT = 511;

const bit<2> CBT_TCP      = 0;
const bit<2> CBT_MARKED   = 1;
const bit<2> CBT_UNMARKED = 2;
const bit<2> CBT_TOTAL    = 3;           /* the cell of the port's total occupancy */

struct metadata_t {
    bit<1>  admitted;       /* admitted under CBT: egress takes it off its class and port */
    bit<1>  passed;         /* the class admits it; the port's limit may still not */
    bit<2>  cbt_class;
    bit<32> cell;           /* port * 4 + class */
    bit<32> total_cell;     /* port * 4 + CBT_TOTAL */
    bit<16> l4_src_port;    /* 0 when the packet has no parsed L4 header */
    bit<16> l4_dst_port;
    bit<8>  w_shift;        /* w_q = 2^-w_shift, for every class */
    bit<32> min_th;         /* TCP's RED thresholds in 2^-16 packets */
    bit<32> ramp_end;
    bit<32> limit_pkts;     /* the port's FIFO, all classes together */
    bit<1>  ecn_enabled;
    bit<32> marked_th;      /* non-TCP class thresholds in 2^-16 packets */
    bit<32> unmarked_th;
    bit<32> occupancy;      /* the class's packets, before this arrival */
    bit<32> total;          /* the port's packets, after this arrival's decision */
    bit<32> avg;            /* the class's average */
    bit<32> p_b;            /* probability in 2^-24 */
    bit<2>  verdict;
}

#include "include/l4_headers.p4"
#include "include/red_core.p4"
#include "include/queue_sampler.p4"

control MyIngress(inout l4_headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
#include "include/l3_forward_table.p4"

    RedAverage() red_average;
    RedRamp() red_ramp;
    RedDecision() red_decision;
    QueueSampler() queue_sampler;

    /* Per cell, so a controller can sample every class's drops and marks. */
    counter(AQM_CELLS, CounterType.packets) cbt_marks;
    counter(AQM_CELLS, CounterType.packets) cbt_early_drops;
    counter(AQM_CELLS, CounterType.packets) cbt_forced_drops;
    counter(AQM_CELLS, CounterType.packets) cbt_threshold_drops;
    counter(AQM_CELLS, CounterType.packets) cbt_overflow_drops;

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

    /* One FIFO: the limit applies to the port's total, and the class and the total
     * count the packet in together. Run for every arrival, so that meta.total is the
     * port's occupancy after the decision either way. */
    action cbt_admit() {
        bit<32> total;
        bit<32> held;
        aqm_occupancy.read(total, meta.total_cell);
        aqm_occupancy.read(held, meta.cell);
        meta.admitted = meta.passed == 1 && total < meta.limit_pkts ? 1w1 : 1w0;
        meta.total = total + (bit<32>) meta.admitted;
        aqm_occupancy.write(meta.total_cell, meta.total);
        aqm_occupancy.write(meta.cell, held + (bit<32>) meta.admitted);
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
            meta.cell = (port << 2) | (bit<32>) meta.cbt_class;
            meta.total_cell = (port << 2) | (bit<32>) CBT_TOTAL;
            red_average.apply(port, meta.cell, meta.w_shift,
                              standard_metadata.ingress_global_timestamp, meta.occupancy,
                              meta.avg);

            bool mark = false;
            bool over_threshold = false;
            if (meta.cbt_class == CBT_TCP) {
                red_ramp.apply(port, meta.avg, meta.p_b);
                red_decision.apply(meta.cell, meta.avg, meta.min_th, meta.ramp_end, meta.p_b,
                                   1, meta.verdict);
                mark = meta.verdict != RED_ENQUEUE && meta.ecn_enabled == 1
                       && hdr.ipv4.ecn != ECN_NOT_ECT;
                meta.passed = meta.verdict == RED_ENQUEUE || mark ? 1w1 : 1w0;
            } else {
                bit<32> threshold = meta.unmarked_th;
                if (meta.cbt_class == CBT_MARKED) {
                    threshold = meta.marked_th;
                }
                over_threshold = meta.avg > threshold;
                meta.passed = over_threshold ? 1w0 : 1w1;
            }
            cbt_admit();

            if (meta.admitted == 1) {
                if (mark) {
                    hdr.ipv4.ecn = ECN_CE;
                    cbt_marks.count(meta.cell);
                }
            } else {
                mark_to_drop(standard_metadata);
                if (meta.passed == 1) {
                    cbt_overflow_drops.count(meta.cell);
                } else if (over_threshold) {
                    cbt_threshold_drops.count(meta.cell);
                } else if (meta.verdict == RED_EARLY) {
                    cbt_early_drops.count(meta.cell);
                } else {
                    cbt_forced_drops.count(meta.cell);
                }
            }
            queue_sampler.apply(port, (bit<8>) meta.cbt_class, meta.total, meta.avg,
                                standard_metadata.ingress_global_timestamp);
        }
    }
}

control MyEgress(inout l4_headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    OccupancyDepart() class_depart;
    OccupancyDepart() total_depart;

    apply {
        if (meta.admitted == 1) {
            class_depart.apply(meta.cell, standard_metadata.egress_global_timestamp);
            total_depart.apply(meta.total_cell, standard_metadata.egress_global_timestamp);
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
