"""The traffic manager in virtual time, through a program that copies the
queue metadata egress sees into the packet (fixtures/queue_probe.p4).

BMv2's definitions (shared/REFERENCE.md section 1): timestamps in µs since
start; enq_qdepth counts the packets in the queue before this one was added,
deq_qdepth those left after it was removed; deq_timedelta is dequeue time
minus enq_timestamp. Times are fixed at enqueue: a packet is dequeued
(egress runs, and it stops counting in the queue) when the link is free,
max(now, previous departure), and departs one service time later."""

import json
import struct
import time

import pytest

from p4aqm.switch._dataplane import Dataplane

PROBE = struct.Struct("!BIIII6s6s")


def probe(prio: int = 0, size: int = PROBE.size) -> bytes:
    head = PROBE.pack(prio, 0, 0, 0, 0, bytes(6), bytes(6))
    return head + bytes(size - len(head))


def fields(pkt: bytes) -> dict[str, int]:
    prio, enq_ts, enq_q, deq_td, deq_q, ing, egr = PROBE.unpack(pkt[: PROBE.size])
    return {
        "prio": prio,
        "enq_timestamp": enq_ts,
        "enq_qdepth": enq_q,
        "deq_timedelta": deq_td,
        "deq_qdepth": deq_q,
        "ingress_ts": int.from_bytes(ing, "big"),
        "egress_ts": int.from_bytes(egr, "big"),
    }


def switch(json_bytes: bytes, **kw: int) -> Dataplane:
    d = Dataplane(virtual_time=True, **kw)
    d.add_memory_port(1)
    d.add_memory_port(2)
    d.load_pipeline(json_bytes)
    return d


def test_unlimited_rate_is_synchronous(queue_probe_json: bytes) -> None:
    d = switch(queue_probe_json)
    d.advance_time(5)
    d.inject(1, probe())
    [(port, pkt, ns)] = d.take_output_timed()
    f = fields(pkt)
    assert (port, ns) == (2, 5000)
    assert f["enq_qdepth"] == f["deq_qdepth"] == f["deq_timedelta"] == 0
    assert f["enq_timestamp"] == f["ingress_ts"] == f["egress_ts"] == 5


def test_10mbps_burst_departs_on_the_ideal_schedule(queue_probe_json: bytes) -> None:
    d = switch(queue_probe_json)
    d.set_queue(2, rate_bps=10_000_000, depth_pkts=64)
    n = 40
    for _ in range(n):
        d.inject(1, probe(size=1500))
    assert d.take_output_timed() == []  # the first is still being sent
    for _ in range(n * 12):
        d.advance_time(100)
    out = d.take_output_timed()
    assert len(out) == n
    for i, (port, pkt, ns) in enumerate(out):
        ideal_ns = (i + 1) * 1_200_000  # 1500 B * 8 / 10 Mbit/s = 1200 µs
        assert port == 2 and len(pkt) == 1500
        assert abs(ns - ideal_ns) <= 1000, (i, ns, ideal_ns)
        f = fields(pkt)
        # The first is dequeued at once; the others wait for the link.
        assert f["enq_qdepth"] == max(i - 1, 0)
        assert f["deq_qdepth"] == (0 if i == 0 else n - 1 - i)
        assert f["enq_timestamp"] == 0
        assert f["deq_timedelta"] == f["egress_ts"] == i * 1200


def test_qdepths_follow_bmv2_definitions_packet_by_packet(queue_probe_json: bytes) -> None:
    d = switch(queue_probe_json)
    d.set_queue(2, rate_pps=1000)  # one packet per ms
    for _ in range(3):
        d.inject(1, probe())  # dequeued at 0, 1, 2 ms
    d.advance_time(1000)  # p1 is dequeued; p2 remains
    d.inject(1, probe())  # p3 finds p2: 1; dequeued at 3 ms
    d.advance_time(500)
    d.inject(1, probe())  # p4 finds p2, p3: 2; dequeued at 4 ms
    d.advance_time(10_000)
    out = d.take_output_timed()
    got = [fields(p) for _, p, _ in out]
    # Packets queued at each arrival: p0 0 (the link is idle, it is dequeued
    # at once), p1 0, p2 1, p3 1, p4 2. Left at each dequeue: p0 0 (p1 and
    # p2 not yet there), p1 1, p2 2, p3 1, p4 0.
    assert [g["enq_qdepth"] for g in got] == [0, 0, 1, 1, 2]
    assert [g["deq_qdepth"] for g in got] == [0, 1, 2, 1, 0]
    assert [g["enq_timestamp"] for g in got] == [0, 0, 0, 1000, 1500]
    assert [g["egress_ts"] for g in got] == [0, 1000, 2000, 3000, 4000]
    assert [g["deq_timedelta"] for g in got] == [0, 1000, 2000, 2000, 2500]
    assert [ns for _, _, ns in out] == [1_000_000, 2_000_000, 3_000_000, 4_000_000, 5_000_000]


def test_full_queue_drops_the_arrival_and_counts_it(queue_probe_json: bytes) -> None:
    d = switch(queue_probe_json)
    d.set_queue(2, rate_pps=1000, depth_pkts=4)
    for i in range(10):
        d.inject(1, probe(size=100 + i))
    # The first is being sent; the next four fill the queue.
    stats = d.port_stats(2)
    assert stats["q0_qdepth_pkts"] == 4 and stats["q0_drops"] == 5 and stats["tm_drops"] == 5
    assert d.port_stats(1)["rx_packets"] == 10
    d.advance_time(10_000)
    out = d.take_output()
    assert [len(p) for _, p in out] == [100, 101, 102, 103, 104]
    stats = d.port_stats(2)
    assert stats["tx_packets"] == 5 and stats["q0_qdepth_pkts"] == 0


def test_depth_in_bytes(queue_probe_json: bytes) -> None:
    d = switch(queue_probe_json)
    d.set_queue(2, rate_pps=1000, depth_bytes=3000)
    for _ in range(4):
        d.inject(1, probe(size=1400))  # one being sent, two fit, one does not
    assert d.port_stats(2)["q0_drops"] == 1


def test_priority_queues_highest_first(queue_probe_json: bytes) -> None:
    # BMv2's priority queues each drain at their own rate; when both have a
    # packet due, the higher queue goes first.
    d = switch(queue_probe_json, priority_queues=2)
    d.set_queue(2, rate_pps=1000)
    for _ in range(3):
        d.inject(1, probe(prio=0))  # dequeued at 0, 1, 2 ms
    for _ in range(3):
        d.inject(1, probe(prio=1))  # dequeued at 0, 1, 2 ms
    d.advance_time(10_000)
    order = [(fields(p)["prio"], fields(p)["egress_ts"]) for _, p in d.take_output()]
    assert order == [(0, 0), (1, 0), (1, 1000), (0, 1000), (1, 2000), (0, 2000)]


def test_queue_api_errors(queue_probe_json: bytes) -> None:
    d = switch(queue_probe_json)
    with pytest.raises(ValueError, match="not both"):
        d.set_queue(2, rate_pps=1, rate_bps=1)
    with pytest.raises(ValueError, match="queue 3 out of range"):
        d.set_queue(2, 3, rate_pps=10)
    with pytest.raises(ValueError, match="positive"):
        d.set_queue(2, rate_pps=0)
    with pytest.raises(ValueError, match="virtual_time"):
        Dataplane().advance_time(1)
    with pytest.raises(ValueError, match="priority_queues"):
        Dataplane(priority_queues=0)


def test_real_time_scheduler_honours_the_rate(queue_probe_json: bytes) -> None:
    d = Dataplane()
    d.add_memory_port(1)
    d.add_memory_port(2)
    d.load_pipeline(queue_probe_json)
    d.set_queue(2, rate_pps=200)  # one packet per 5 ms
    d.start()
    try:
        for _ in range(5):
            d.inject(1, probe())
        deadline = time.monotonic() + 30  # only a hang takes this long
        out: list = []
        while len(out) < 5 and time.monotonic() < deadline:
            time.sleep(0.01)
            out += d.take_output_timed()
    finally:
        d.stop()
    assert len(out) == 5
    # Departure times are the schedule's, whatever the thread's wake-up lag.
    gaps = [b[2] - a[2] for a, b in zip(out, out[1:], strict=False)]
    assert gaps == [5_000_000] * 4, gaps


def test_qid_is_the_priority_queue(queue_probe_json: bytes) -> None:
    # p4c's v1model has no qid field; BMv2's JSON may (queueing_metadata.qid).
    # Add it, and have egress copy it into probe.prio.
    doc = json.loads(queue_probe_json)
    sm = next(t for t in doc["header_types"] if t["name"] == "standard_metadata")
    sm["fields"].insert(-1, ["qid", 5, False])
    sm["fields"][-1] = ["_padding", 6, False]
    egress = next(
        a
        for a in doc["actions"]
        if any(p["parameters"][0]["value"] == ["probe", "enq_timestamp"] for p in a["primitives"])
    )
    egress["primitives"].append(
        {
            "op": "assign",
            "parameters": [
                {"type": "field", "value": ["probe", "prio"]},
                {"type": "field", "value": ["standard_metadata", "qid"]},
            ],
        }
    )
    d = switch(json.dumps(doc).encode(), priority_queues=3)
    for prio in (0, 1, 2, 7):  # priorities past the last queue go to the highest
        d.inject(1, probe(prio=prio))
    assert [fields(p)["prio"] for _, p in d.take_output()] == [0, 1, 2, 2]
