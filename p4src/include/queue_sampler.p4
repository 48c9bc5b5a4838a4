/* Queue samples as digests, for switches whose P4Runtime server does not read registers
 * (BMv2): on an arrival at a port whose queue_sampling entry gives a period, ingress
 * sends the occupancy and average it just computed, at most once per period. The
 * controller's sampler installs the entries and records the digests. A port with no
 * arrivals sends none. Include after NUM_PORTS, at the top level; instantiate
 * QueueSampler in MyIngress. */
#ifndef P4AQM_QUEUE_SAMPLER_P4
#define P4AQM_QUEUE_SAMPLER_P4

struct queue_sample_t {
    bit<32> port;
    bit<8>  traffic_class;  /* CBT's class of the arrival; 0 elsewhere */
    bit<32> occupancy;      /* packets, after this arrival's decision */
    bit<32> avg;            /* in 2^-16 packets */
    bit<48> time_us;
}

register<bit<48>>(NUM_PORTS) queue_sample_last_us;

control QueueSampler(in bit<32> port, in bit<8> traffic_class, in bit<32> occupancy,
                     in bit<32> avg, in bit<48> now_us) {
    bit<48> period_us = 0;
    bit<1> due = 0;

    action set_sample_period(bit<48> sample_period_us) { period_us = sample_period_us; }

    table queue_sampling {
        key = { port: exact; }
        actions = { set_sample_period; NoAction; }
        default_action = NoAction();
        size = 512;
    }

    /* Read and update in one action, as every register update in p4src/ is. */
    action take_turn() {
        bit<48> last_us;
        queue_sample_last_us.read(last_us, port);
        due = now_us - last_us >= period_us ? 1w1 : 1w0;
        queue_sample_last_us.write(port, due == 1 ? now_us : last_us);
    }

    apply {
        if (queue_sampling.apply().hit) {
            take_turn();
            if (due == 1) {
                digest<queue_sample_t>(1, { port, traffic_class, occupancy, avg, now_us });
            }
        }
    }
}

#endif
