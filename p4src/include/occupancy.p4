/* Occupancy: the packets a discipline admitted and that have not left its queue yet, per
 * cell (a port, or one of CBT's classes on a port). AQMs decide at arrival, but v1model
 * shows the queue's depth only in egress, so the programs count: ingress adds a packet
 * when it admits it, egress takes it off when it leaves the queue.
 *
 * Ingress and egress run on different threads, on BMv2 and on p4aqm's switch alike. What
 * both guarantee is that while an action runs, every register array it references is
 * locked: a read-modify-write inside one action is atomic, one split across actions or
 * statements of an apply block is not (the other thread's updates in between are lost).
 * So each count changes in exactly one action, and the admission test against the limit
 * is in the same action as the increment.
 *
 * Define AQM_CELLS (bit<32>) before including this file.
 */
#ifndef P4AQM_OCCUPANCY_P4
#define P4AQM_OCCUPANCY_P4

register<bit<32>>(AQM_CELLS) aqm_occupancy;   /* packets */
register<bit<48>>(AQM_CELLS) aqm_idle_since;  /* us: when the cell last became empty */

/* Ingress: admits the packet to the cell if it holds fewer than limit_pkts. */
control OccupancyAdmit(in bit<32> cell, in bit<32> limit_pkts, out bit<1> admitted) {
    action occupancy_admit() {
        bit<32> held;
        aqm_occupancy.read(held, cell);
        admitted = held < limit_pkts ? 1w1 : 1w0;
        aqm_occupancy.write(cell, held + (bit<32>) admitted);
    }

    apply { occupancy_admit(); }
}

/* Egress: a packet of the cell left the queue; the one that empties it records when. */
control OccupancyDepart(in bit<32> cell, in bit<48> now_us) {
    action occupancy_depart() {
        bit<32> held;
        bit<48> since;
        aqm_occupancy.read(held, cell);
        aqm_idle_since.read(since, cell);
        /* A count the control plane reset while packets were queued must not wrap. */
        held = held == 0 ? 0 : held - 1;
        aqm_occupancy.write(cell, held);
        aqm_idle_since.write(cell, held == 0 ? now_us : since);
    }

    apply { occupancy_depart(); }
}

#endif
