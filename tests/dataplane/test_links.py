"""Link emulation: propagation delay each way, outside the P4-visible queue,
and the line rate as the queue's drain rate (fixtures/queue_probe.p4 sends
everything from port 1 to port 2)."""

import time

from test_traffic_manager import fields, probe, switch

from p4aqm.switch._dataplane import Dataplane


def test_delay_each_way_in_virtual_time(queue_probe_json: bytes) -> None:
    d = switch(queue_probe_json)
    d.set_link(1, delay_us=40_000)
    d.set_link(2, delay_us=40_000)
    d.inject(1, probe())
    d.advance_time(39_999)
    assert d.take_output() == []
    d.advance_time(1)  # lands: ingress and egress run at 40 ms
    assert d.take_output() == []
    d.advance_time(40_000)
    [(port, pkt, ns)] = d.take_output_timed()
    assert (port, ns) == (2, 80_000_000)
    f = fields(pkt)
    # The program sees the switch's own times, not the wire's.
    assert f["ingress_ts"] == f["egress_ts"] == 40_000 and f["enq_qdepth"] == 0


def test_link_rate_drains_the_visible_queue(queue_probe_json: bytes) -> None:
    d = switch(queue_probe_json)
    d.set_link(2, delay_us=1000, rate_bps=10_000_000)
    for _ in range(3):
        d.inject(1, probe(size=1500))
    # The backlog is in the P4 queue; only the packet being sent is not.
    assert d.port_stats(2)["q0_qdepth_pkts"] == 2
    d.advance_time(10_000)
    out = d.take_output_timed()
    # 1.2 ms to send each 1500-byte packet, then 1 ms on the wire.
    assert [ns for _, _, ns in out] == [2_200_000, 3_400_000, 4_600_000]
    assert [fields(p)["enq_qdepth"] for _, p, _ in out] == [0, 0, 1]
    d.set_link(2, delay_us=0, rate_bps=0)
    d.inject(1, probe())
    assert len(d.take_output()) == 1  # back to immediate


def test_delay_in_real_time(queue_probe_json: bytes) -> None:
    d = Dataplane()
    d.add_memory_port(1)
    d.add_memory_port(2)
    d.load_pipeline(queue_probe_json)
    d.set_link(2, delay_us=20_000)
    d.start()
    try:
        t0 = d.now_us()
        d.inject(1, probe())
        t1 = d.now_us()
        deadline = time.monotonic() + 30  # only a hang takes this long
        out: list = []
        while not out and time.monotonic() < deadline:
            time.sleep(0.005)
            out = d.take_output_timed()
    finally:
        d.stop()
    assert len(out) == 1
    # The packet left 20 ms after it arrived, in the switch's clock: a bound that holds
    # however long inject() took or the event loop was late.
    assert t0 + 20_000 <= out[0][2] / 1000 <= t1 + 20_001


def test_priority_queues_share_the_line(queue_probe_json: bytes) -> None:
    d = switch(queue_probe_json, priority_queues=2)
    d.set_link(2, rate_bps=12_000_000)  # 1500 bytes per ms
    for prio in (0, 0, 0, 1, 1, 1):
        d.inject(1, probe(prio=prio, size=1500))
    d.advance_time(10_000)
    out = d.take_output_timed()
    # The first low packet had the line to itself; then the high queue
    # takes every turn until it is empty.
    assert [(fields(p)["prio"], fields(p)["egress_ts"]) for _, p, _ in out] == [
        (0, 0),
        (1, 1000),
        (1, 2000),
        (1, 3000),
        (0, 4000),
        (0, 5000),
    ]
    assert [ns for _, _, ns in out] == [i * 1_000_000 for i in range(1, 7)]


def test_a_queue_slower_than_the_line_holds_it_one_line_time(queue_probe_json: bytes) -> None:
    # CBQ's shape: a class queue paced at a fifth of the line above a borrowing one.
    # The slow queue spaces its packets at its own rate, but each is on the wire for
    # the line's service time; the line's other four slots go to the lower queue.
    d = switch(queue_probe_json, priority_queues=2)
    d.set_link(2, rate_bps=12_000_000)  # 1500 bytes per ms
    d.set_queue(2, 1, rate_bps=2_400_000)  # one 1500-byte packet per 5 ms
    for prio in [1] * 4 + [0] * 16:
        d.inject(1, probe(prio=prio, size=1500))
    d.advance_time(30_000)
    out = d.take_output_timed()
    assert [ns for _, _, ns in out] == [i * 1_000_000 for i in range(1, 21)]
    high = [fields(p)["egress_ts"] for _, p, _ in out if fields(p)["prio"] == 1]
    assert high == [0, 5000, 10_000, 15_000]
