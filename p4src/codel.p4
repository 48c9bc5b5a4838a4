/* codel: CoDel (RFC 8289, Nichols and Jacobson) per egress port, with an ECN option.
 *
 * CoDel decides at dequeue, in egress, from the sojourn time of the packet leaving the
 * queue: v1model's standard_metadata.deq_timedelta (us), with
 * standard_metadata.egress_global_timestamp (us) as the clock. Ingress only applies the
 * hard limit (limit_pkts, include/occupancy.p4) and gives egress the port's parameters.
 * p4aqm/models/codel.py is the oracle and says the same in Python.
 *
 * State per port (registers, RFC 8289's names): first_above_time, dropping, count,
 * lastcount, drop_next, and the last sojourn time for the monitor. For each dequeued
 * packet:
 *
 *   above   = sojourn >= target and more than one packet is left behind it (RFC 8289's
 *             bytes() <= MAXPACKET, in packets: deq_qdepth <= 1 is "nearly empty")
 *   first_above_time <- 0 unless above; now + interval when it becomes above
 *   ok_to_drop = above and first_above_time != 0 and now >= first_above_time
 *   dropping and not ok_to_drop:          leave the dropping state
 *   dropping and now >= drop_next:        drop; count += 1 (saturating);
 *                                         drop_next <- drop_next + control_law(count)
 *   not dropping and ok_to_drop:          drop; enter the dropping state; count <- the
 *                                         count - lastcount of the last episode if it is
 *                                         above 1 and drop_next is less than 16 intervals
 *                                         ago, else 1; lastcount <- count;
 *                                         drop_next <- now + control_law(count)
 *
 * One decision per dequeued packet. RFC 8289's dequeue routine drops in a loop until the
 * head of the queue is no longer due; v1model cannot take another packet out of the queue
 * from egress, so a packet that is due is dropped (or marked) and the next due drop
 * waits for the next departure, as P4-CoDel does. With ECN on, a drop of an ECT packet
 * sets CE instead (RFC 8289 section 5.5); the state advances the same way.
 *
 * The control law, interval / sqrt(count) in us, is a lookup table, not arithmetic: a
 * range table on count per port (codel_control_law) that the controller fills, one entry
 * per count up to 25, then bins [lo, hi] with hi < 1.04 lo up to count 2^32 - 1 (about
 * 500 entries), each holding interval / sqrt(sqrt(lo hi)) rounded to a microsecond.
 * Error: at most 1 % of interval / sqrt(count) plus 0.5 us, for every count
 * (p4aqm/models/codel.py derives it; tests/models/test_codel_model.py checks every bin).
 * The table covers every count, so the default (0) is never taken.
 *
 * Every CoDel register is read and written only by egress, and one port's departures
 * pass egress one at a time (on BMv2 a port's queue belongs to one egress thread, on
 * p4aqm's switch egress takes one departure at a time), so the state may change over
 * two actions: codel_decide, and codel_schedule once the table gave the law.
 *
 * Ranges (p4aqm/models/codel.py, checked when a config is loaded): target and interval
 * are bit<32> us, so at most 4294 s; drop_next and first_above_time are bit<48> us.
 */
#include <core.p4>
#include <v1model.p4>
#include "include/headers.p4"

const bit<32> NUM_PORTS = 512;
const bit<32> AQM_CELLS = NUM_PORTS;   /* one cell per port */
const bit<9>  DROP_PORT = 511;
const bit<32> COUNT_MAX = 0xffffffff;  /* count saturates here */
const bit<48> RESUME_INTERVALS = 16;   /* count resumes if the last drop_next is this near */

struct metadata_t {
    bit<1>  admitted;       /* admitted under the limit: egress runs CoDel on it */
    bit<32> target_us;
    bit<32> interval_us;
    bit<32> limit_pkts;
    bit<1>  ecn_enabled;
}

#include "include/parser.p4"
#include "include/occupancy.p4"
#include "include/queue_sampler.p4"

register<bit<48>>(NUM_PORTS) codel_first_above_time;  /* us; 0: not above target */
register<bit<1>>(NUM_PORTS)  codel_dropping;
register<bit<32>>(NUM_PORTS) codel_count;
register<bit<32>>(NUM_PORTS) codel_lastcount;
register<bit<48>>(NUM_PORTS) codel_drop_next;         /* us */
register<bit<32>>(NUM_PORTS) codel_sojourn_us;        /* the last dequeued packet's */

control MyIngress(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
#include "include/l3_forward_table.p4"

    OccupancyAdmit() occupancy_admit;
    QueueSampler() queue_sampler;

    counter(NUM_PORTS, CounterType.packets) overflow_drops;

    action codel_set_params(bit<32> target_us, bit<32> interval_us, bit<32> limit_pkts,
                            bit<1> ecn_enabled) {
        meta.target_us = target_us;
        meta.interval_us = interval_us;
        meta.limit_pkts = limit_pkts;
        meta.ecn_enabled = ecn_enabled;
    }

    /* Ports with an entry run CoDel; the others are plain FIFOs of the switch. */
    table codel_config {
        key = { standard_metadata.egress_spec: exact; }
        actions = { codel_set_params; NoAction; }
        default_action = NoAction();
        size = 512;
    }

    apply {
        if (hdr.ipv4.isValid() && hdr.ipv4.ttl > 1) {
            ipv4_lpm.apply();
        } else {
            drop();
        }
        if (standard_metadata.egress_spec != DROP_PORT && codel_config.apply().hit) {
            bit<32> port = (bit<32>) standard_metadata.egress_spec;
            occupancy_admit.apply(port, meta.limit_pkts, meta.admitted);
            if (meta.admitted == 0) {
                mark_to_drop(standard_metadata);
                overflow_drops.count(port);
            }
            bit<32> occupancy;
            aqm_occupancy.read(occupancy, port);
            queue_sampler.apply(port, 0, occupancy, 0, standard_metadata.ingress_global_timestamp);
        }
    }
}

control MyEgress(inout headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    OccupancyDepart() occupancy_depart;

    counter(NUM_PORTS, CounterType.packets) marks;
    counter(NUM_PORTS, CounterType.packets) drops;

    bit<32> port = 0;
    bit<48> now_us = 0;
    bit<1>  ok_to_drop = 0;
    bit<1>  drop_packet = 0;
    bit<32> count = 0;
    bit<48> law_base_us = 0;
    bit<32> law_us = 0;

    /* RFC 8289's dodequeue: is the sojourn time above target, and has it been for an
     * interval? */
    action codel_dodequeue() {
        bit<48> first_above_time;
        bit<32> sojourn_us = standard_metadata.deq_timedelta;
        codel_first_above_time.read(first_above_time, port);
        bool above = sojourn_us >= meta.target_us && standard_metadata.deq_qdepth > 1;
        ok_to_drop = above && first_above_time != 0 && now_us >= first_above_time
                     ? 1w1 : 1w0;
        codel_first_above_time.write(port, !above ? 0
            : (first_above_time == 0 ? now_us + (bit<48>) meta.interval_us
                                     : first_above_time));
        codel_sojourn_us.write(port, sojourn_us);
    }

    /* The dropping state, count and lastcount; whether this packet is dropped, and from
     * which time the next drop is scheduled. */
    action codel_decide() {
        bit<1> dropping;
        bit<32> lastcount;
        bit<48> drop_next;
        codel_dropping.read(dropping, port);
        codel_count.read(count, port);
        codel_lastcount.read(lastcount, port);
        codel_drop_next.read(drop_next, port);
        bool enter = dropping == 0 && ok_to_drop == 1;
        bool again = dropping == 1 && ok_to_drop == 1 && now_us >= drop_next;
        bit<32> delta = count - lastcount;
        bool recent = now_us < drop_next
                      || now_us - drop_next < RESUME_INTERVALS * (bit<48>) meta.interval_us;
        count = enter ? (delta > 1 && recent ? delta : 1)
              : (again && count != COUNT_MAX ? count + 1 : count);
        drop_packet = enter || again ? 1w1 : 1w0;
        law_base_us = enter ? now_us : drop_next;
        codel_dropping.write(port, ok_to_drop);
        codel_count.write(port, count);
        codel_lastcount.write(port, enter ? count : lastcount);
    }

    action set_control_law(bit<32> law) { law_us = law; }

    /* interval / sqrt(count) in us, per port, from the controller. */
    table codel_control_law {
        key = {
            port: exact;
            count: range;
        }
        actions = { set_control_law; }
        default_action = set_control_law(0);
        size = 16384;
    }

    action codel_schedule() {
        codel_drop_next.write(port, law_base_us + (bit<48>) law_us);
    }

    apply {
        if (meta.admitted == 1) {
            port = (bit<32>) standard_metadata.egress_port;
            now_us = standard_metadata.egress_global_timestamp;
            occupancy_depart.apply(port, now_us);
            codel_dodequeue();
            codel_decide();
            if (drop_packet == 1) {
                codel_control_law.apply();
                codel_schedule();
                if (meta.ecn_enabled == 1 && hdr.ipv4.ecn != ECN_NOT_ECT) {
                    hdr.ipv4.ecn = ECN_CE;
                    marks.count(port);
                } else {
                    mark_to_drop(standard_metadata);
                    drops.count(port);
                }
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
