"""The queue monitor inside the switch (issue #11): one fixed-size record per period holding,
for every monitored (port, queue), the traffic manager's depth and what happened since the
previous record, plus chosen register cells and counter deltas.

The acceptance test runs 10,000 periods of 3 ms in virtual time on 4 rate-limited ports while
packets arrive at irregular times, and checks every field of every record against what the
test reads itself at each sample instant (queue_snapshot, counter_read, port_stats) and
against the sojourns it computes from its own injection times and the packets' egress
timestamps. The program (PROGRAM below) counts each packet per egress port in a counter and
keeps per-port registers written in ingress and in egress."""

import math
import random
import struct
import threading
import time
from pathlib import Path

import pytest

from p4aqm.switch._dataplane import Dataplane
from programs import compile_program

PROGRAM = r"""
#include <core.p4>
#include <v1model.p4>

header probe_t {
    bit<16> dst;            /* egress port */
    bit<32> seq;
    bit<32> ingress_ts;
    bit<32> egress_ts;
    bit<32> deq_timedelta;
}

struct headers_t { probe_t probe; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.probe); transition accept; }
}

control V(inout headers_t hdr, inout meta_t meta) { apply { } }

control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    counter(8, CounterType.packets_and_bytes) to_port;
    register<bit<48>>(8) last_arrival;
    register<bit<32>>(8) sent;
    register<bit<80>>(1) wide;

    action forward() {
        bit<32> n;
        sent.read(n, (bit<32>) hdr.probe.dst);
        sent.write((bit<32>) hdr.probe.dst, n + 1);
        last_arrival.write((bit<32>) hdr.probe.dst, sm.ingress_global_timestamp);
        wide.write(0, (bit<80>) hdr.probe.seq);
        sm.egress_spec = (bit<9>) hdr.probe.dst;
    }

    apply {
        forward();
        to_port.count((bit<32>) hdr.probe.dst);
        hdr.probe.ingress_ts = (bit<32>) sm.ingress_global_timestamp;
    }
}

control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    register<bit<32>>(8) last_sojourn;
    apply {
        last_sojourn.write((bit<32>) sm.egress_port, sm.deq_timedelta);
        hdr.probe.egress_ts = (bit<32>) sm.egress_global_timestamp;
        hdr.probe.deq_timedelta = sm.deq_timedelta;
    }
}

control C(inout headers_t hdr, inout meta_t meta) { apply { } }

control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.probe); } }

V1Switch(P(), V(), I(), E(), C(), D()) main;
"""

PROBE = struct.Struct("!HIIII")
QUEUE_FIELDS = [
    "qdepth_pkts",
    "qdepth_bytes",
    "arrivals",
    "departures",
    "tm_drops",
    "departed_sojourn_max_us",
    "departed_sojourn_sum_us",
]
PERIOD_US = 3000
PORTS = (1, 2, 3, 4)
# Service times of whole microseconds (500, 250, 320, 800 us), so every dequeue falls on a
# microsecond and the egress timestamp places it exactly before or after a sample instant.
RATE_PPS = {1: 2000.0, 2: 4000.0, 3: 3125.0, 4: 1250.0}
DEPTH = {1: 12, 2: 20, 3: 8, 4: 16}


@pytest.fixture(scope="module")
def program_json(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    out = Path(tmp_path_factory.mktemp("monitor"))
    source = out / "monitor_probe.p4"
    source.write_text(PROGRAM)
    return compile_program(source, out).json_path.read_bytes()


def switch(program: bytes | None, **kw: object) -> Dataplane:
    dp = Dataplane(virtual_time=True, **kw)
    for p in (0, *PORTS):
        dp.add_memory_port(p)
    if program is not None:
        dp.load_pipeline(program)
    return dp


def packet(dst: int, seq: int, extra: int = 0) -> bytes:
    return PROBE.pack(dst, seq, 0, 0, 0) + bytes(extra)


def unpack(fields: list[str], data: bytes) -> list[dict[str, int]]:
    assert len(data) % (8 * len(fields)) == 0
    return [dict(zip(fields, r, strict=True)) for r in struct.iter_unpack(f"<{len(fields)}Q", data)]


def registers_of(port: int) -> list[tuple[str, int]]:
    return [("I.last_arrival", port), ("I.sent", port), ("E.last_sojourn", port)]


class Readings:
    """What the test reads itself at a sample instant, per monitored port."""

    def __init__(self, dp: Dataplane) -> None:
        self.snap = {p: dp.queue_snapshot(p, 0, registers_of(p)) for p in PORTS}
        self.counter = {p: dp.counter_read("I.to_port", p) for p in PORTS}  # (bytes, packets)
        self.stats = {p: dp.port_stats(p) for p in PORTS}


def expected_record(k: int, now_us: int, now: Readings, before: Readings) -> dict[str, int]:
    """Record k from the test's own readings at instant k and at instant k-1."""
    rec = {"period": k, "time_us": now_us}
    for i, p in enumerate(PORTS):
        snap = now.snap[p]
        drops = now.stats[p]["q0_drops"] - before.stats[p]["q0_drops"]
        sent_pkts = now.counter[p][1] - before.counter[p][1]
        rec |= {
            f"q{i}.qdepth_pkts": snap["qdepth_pkts"],
            f"q{i}.qdepth_bytes": snap["qdepth_bytes"],
            f"q{i}.arrivals": sent_pkts - drops,
            f"q{i}.departures": now.stats[p]["tx_packets"] - before.stats[p]["tx_packets"],
            f"q{i}.tm_drops": drops,
            f"c{i}.packets": sent_pkts,
            f"c{i}.bytes": now.counter[p][0] - before.counter[p][0],
        }
        for j, value in enumerate(snap["registers"]):
            rec[f"r{3 * i + j}"] = value
    return rec


def burst_size(rng: random.Random, k: int) -> int:
    """Packets arriving in period k: phases of overload (queues fill and drop) and of
    underload (they drain to empty), with random bursts."""
    load = 110 if (k // 150) % 2 == 0 else 8
    return rng.randint(0, load) + (rng.randint(20, 60) if rng.random() < 0.03 else 0)


def test_10000_periods_of_3ms_on_4_ports_match_the_switch_state_at_each_instant(
    program_json: bytes,
) -> None:
    dp = switch(program_json)
    for p in PORTS:
        dp.set_queue(p, 0, rate_pps=RATE_PPS[p], depth_pkts=DEPTH[p])
    rng = random.Random(11)
    injected_at: dict[int, int] = {}
    seq = 0

    def inject(dst: int) -> None:
        nonlocal seq
        seq += 1
        injected_at[seq] = dp.now_us()
        dp.inject(0, packet(dst, seq, rng.randint(0, 200)))

    # Queues already busy when the monitor starts, at an instant off any round number.
    dp.advance_time(1234)
    for _ in range(30):
        inject(rng.choice(PORTS))
    dp.advance_time(777)

    queues = [(p, 0) for p in PORTS]
    registers = [cell for p in PORTS for cell in registers_of(p)]
    counters = [("I.to_port", p) for p in PORTS]
    fields = dp.monitor_start(PERIOD_US, queues, registers, counters)
    assert fields == (
        ["period", "time_us", "realtime_ns"]
        + [f"q{i}.{f}" for i in range(4) for f in QUEUE_FIELDS]
        + [f"r{j}" for j in range(12)]
        + [f"c{k}.{f}" for k in range(4) for f in ("packets", "bytes")]
    )
    wall_start = time.time_ns()
    t0 = dp.now_us()
    before = Readings(dp)
    expected = [expected_record(0, t0, before, before)]
    data = bytearray()
    outputs: list[bytes] = []
    periods = 10_000
    for k in range(1, periods):
        # Arrivals at irregular times inside (instant k-1, instant k).
        offsets = sorted(rng.randint(1, PERIOD_US - 1) for _ in range(burst_size(rng, k)))
        at = 0
        for off in offsets:
            dp.advance_time(off - at)
            at = off
            inject(rng.choice(PORTS))
        dp.advance_time(PERIOD_US - at)
        assert dp.now_us() == t0 + k * PERIOD_US
        now = Readings(dp)
        expected.append(expected_record(k, dp.now_us(), now, before))
        before = now
        outputs.extend(pkt for _, pkt in dp.take_output())
        if k % 1000 == 0:
            data += dp.monitor_take()
    data += dp.monitor_take()
    wall_end = time.time_ns()
    assert dp.monitor_stats() == {
        "records": periods,
        "overruns": 0,
        "missed": 0,
        "capacity": 65536,
    }
    dp.monitor_stop()
    # Let the packets still on the wire arrive; later dequeues belong to no record.
    dp.advance_time(100_000)
    outputs.extend(pkt for _, pkt in dp.take_output())
    assert dp.monitor_take() == b""

    records = unpack(fields, data)
    assert [r["period"] for r in records] == list(range(periods))
    assert len(injected_at) > 200_000

    # Sojourns from the test's own injection times and each packet's dequeue time; a
    # dequeue at an instant happens before that instant's sample.
    sojourns: dict[tuple[int, int], list[int]] = {}
    for pkt in outputs:
        dst, s, _, egress_ts, deq_timedelta = PROBE.unpack(pkt[: PROBE.size])
        assert deq_timedelta == egress_ts - injected_at[s]
        k = math.ceil((egress_ts - t0) / PERIOD_US)
        sojourns.setdefault((dst, k), []).append(egress_ts - injected_at[s])

    for k, (rec, exp) in enumerate(zip(records, expected, strict=True)):
        for i, p in enumerate(PORTS):
            got = sojourns.get((p, k), []) if k > 0 else []
            exp[f"q{i}.departed_sojourn_max_us"] = max(got, default=0)
            exp[f"q{i}.departed_sojourn_sum_us"] = sum(got)
            assert len(got) == exp[f"q{i}.departures"], (k, p)
        wrong = {f: (rec[f], v) for f, v in exp.items() if rec[f] != v}
        assert not wrong, f"record {k}: field: (recorded, read by the test): {wrong}"
        assert wall_start - 60e9 <= rec["realtime_ns"] <= wall_end + 60e9

    # The run exercised what it checks: full queues dropping, queues draining to empty.
    for i in range(4):
        assert sum(r[f"q{i}.tm_drops"] for r in records) > 100
        assert max(r[f"q{i}.qdepth_pkts"] for r in records) == DEPTH[PORTS[i]]
        assert sum(r[f"q{i}.qdepth_pkts"] == 0 for r in records) > 100
        service_us = 1e6 / RATE_PPS[PORTS[i]]
        longest = max(r[f"q{i}.departed_sojourn_max_us"] for r in records)
        assert longest >= (DEPTH[PORTS[i]] - 1) * service_us


def test_sojourn_of_a_simple_burst(program_json: bytes) -> None:
    dp = switch(program_json)
    dp.set_queue(1, 0, rate_pps=1000.0)  # 1 ms each
    dp.advance_time(50)
    fields = dp.monitor_start(3000, [(1, 0)])
    assert fields == ["period", "time_us", "realtime_ns"] + [f"q0.{f}" for f in QUEUE_FIELDS]
    dp.advance_time(100)
    for s in range(3):
        dp.inject(0, packet(1, s, 10))
    dp.advance_time(2900)  # dequeues at +100, +1100, +2100: sojourns 0, 1000, 2000 us
    dp.inject(0, packet(1, 3))  # at +3000, after record 1: dequeued at +3100
    dp.advance_time(3000)
    r0, r1, r2 = unpack(fields, dp.monitor_take())
    assert (r0["period"], r0["time_us"], r0["q0.arrivals"], r0["q0.departures"]) == (0, 50, 0, 0)
    assert r1["time_us"] == 3050
    assert (r1["q0.arrivals"], r1["q0.departures"], r1["q0.qdepth_pkts"]) == (3, 3, 0)
    assert (r1["q0.departed_sojourn_max_us"], r1["q0.departed_sojourn_sum_us"]) == (2000, 3000)
    assert (r2["q0.arrivals"], r2["q0.departures"]) == (1, 1)
    assert (r2["q0.departed_sojourn_max_us"], r2["q0.departed_sojourn_sum_us"]) == (100, 100)


def test_records_are_taken_at_the_instant_before_later_events(program_json: bytes) -> None:
    """A dequeue at exactly a sample instant is in that record; depth and registers are
    what queue_snapshot reads right after advancing to the instant."""
    dp = switch(program_json)
    dp.set_queue(2, 0, rate_pps=1000.0)
    fields = dp.monitor_start(1000, [(2, 0)], [("E.last_sojourn", 2)])
    for s in range(4):
        dp.inject(0, packet(2, s))  # dequeues at 0, 1000, 2000, 3000 us
    dp.advance_time(2000)
    snap = dp.queue_snapshot(2, 0, [("E.last_sojourn", 2)])
    r0, r1, r2 = unpack(fields, dp.monitor_take())
    assert (r0["q0.arrivals"], r0["q0.departures"], r0["q0.qdepth_pkts"]) == (0, 0, 0)
    # The dequeue at 0 came after record 0 (the packets arrived after it); the one at
    # 1000 us is in record 1.
    assert [r["q0.departures"] for r in (r1, r2)] == [2, 1]
    assert (r2["q0.qdepth_pkts"], r2["r0"]) == (snap["qdepth_pkts"], snap["registers"][0])
    assert (r2["q0.qdepth_pkts"], r2["r0"]) == (1, 2000)


def test_a_full_ring_keeps_the_oldest_records_and_counts_overruns(program_json: bytes) -> None:
    dp = switch(program_json)
    fields = dp.monitor_start(1000, [(1, 0)], capacity=3)
    dp.advance_time(5000)
    assert dp.monitor_stats() == {"records": 6, "overruns": 3, "missed": 0, "capacity": 3}
    first = unpack(fields, dp.monitor_take(max_records=2))
    assert [r["period"] for r in first] == [0, 1]
    dp.advance_time(1000)  # room for one more: period 6
    assert [r["period"] for r in unpack(fields, dp.monitor_take())] == [2, 6]
    assert dp.monitor_take() == b""


def test_the_same_queue_twice_and_priority_queues(program_json: bytes) -> None:
    dp = switch(program_json, priority_queues=2)
    dp.set_queue(1, None, rate_pps=1000.0)
    fields = dp.monitor_start(1000, [(1, 0), (1, 1), (1, 0)])
    for s in range(3):
        dp.inject(0, packet(1, s))
    dp.advance_time(1000)
    _, r1 = unpack(fields, dp.monitor_take())
    q0 = [r1[f"q0.{f}"] for f in QUEUE_FIELDS]
    assert q0 == [1, PROBE.size, 3, 2, 0, 1000, 1000]
    assert q0 == [r1[f"q2.{f}"] for f in QUEUE_FIELDS]
    assert [r1[f"q1.{f}"] for f in QUEUE_FIELDS] == [0] * 7


def test_errors_name_what_is_wrong(program_json: bytes) -> None:
    dp = switch(None)
    with pytest.raises(ValueError, match="period must be at least 1000 us"):
        dp.monitor_start(999, [(1, 0)])
    with pytest.raises(ValueError, match="capacity"):
        dp.monitor_start(1000, [(1, 0)], capacity=0)
    with pytest.raises(ValueError, match="no pipeline loaded"):
        dp.monitor_start(1000, [(1, 0)], registers=[("I.sent", 1)])
    with pytest.raises(ValueError, match="no pipeline loaded"):
        dp.monitor_start(1000, [(1, 0)], counters=[("I.to_port", 1)])
    with pytest.raises(ValueError, match=r"queues\[1\]: port 511 out of range"):
        dp.monitor_start(1000, [(1, 0), (511, 0)])
    with pytest.raises(ValueError, match=r"queues\[0\]: port -1 out of range"):
        dp.monitor_start(1000, [(-1, 0)])
    with pytest.raises(ValueError, match=r"queues\[0\]: queue 1 out of range.*1 queue"):
        dp.monitor_start(1000, [(1, 1)])
    assert dp.monitor_start(1000, [(1, 0)])[:3] == ["period", "time_us", "realtime_ns"]

    dp.load_pipeline(program_json)
    with pytest.raises(KeyError, match="unknown register 'nope'"):
        dp.monitor_start(1000, [], registers=[("nope", 0)])
    with pytest.raises(KeyError, match="unknown counter 'nope'"):
        dp.monitor_start(1000, [], counters=[("nope", 0)])
    with pytest.raises(ValueError, match="register 'I.sent': index 8 out of range"):
        dp.monitor_start(1000, [], registers=[("I.sent", 8)])
    with pytest.raises(ValueError, match="counter 'I.to_port': index 8 out of range"):
        dp.monitor_start(1000, [], counters=[("I.to_port", 8)])
    with pytest.raises(ValueError, match="register 'I.wide' is 80 bits wide"):
        dp.monitor_start(1000, [], registers=[("I.wide", 0)])


def test_a_refused_start_leaves_the_running_monitor(program_json: bytes) -> None:
    dp = switch(program_json)
    fields = dp.monitor_start(1000, [(1, 0)])
    with pytest.raises(ValueError):
        dp.monitor_start(500, [(1, 0)])
    dp.advance_time(2000)
    assert [r["period"] for r in unpack(fields, dp.monitor_take())] == [0, 1, 2]


def test_stop_is_idempotent_and_keeps_the_records(program_json: bytes) -> None:
    dp = switch(program_json)
    dp.monitor_stop()
    fields = dp.monitor_start(1000, [(1, 0)])
    dp.advance_time(1000)
    dp.monitor_stop()
    dp.monitor_stop()
    dp.advance_time(5000)
    assert [r["period"] for r in unpack(fields, dp.monitor_take())] == [0, 1]
    assert dp.monitor_stats()["records"] == 2
    # A new start begins a new run: period 0 at the new start, counts reset.
    fields = dp.monitor_start(2000, [(1, 0)])
    dp.advance_time(2000)
    assert [r["period"] for r in unpack(fields, dp.monitor_take())] == [0, 1]
    assert dp.monitor_stats() == {"records": 2, "overruns": 0, "missed": 0, "capacity": 65536}


def test_loading_a_pipeline_stops_a_monitor_that_names_registers_or_counters(
    program_json: bytes,
) -> None:
    dp = switch(program_json)
    dp.monitor_start(1000, [(1, 0)], counters=[("I.to_port", 1)])
    dp.load_pipeline(program_json)
    dp.advance_time(3000)
    assert dp.monitor_stats()["records"] == 1

    fields = dp.monitor_start(1000, [(1, 0)])
    dp.load_pipeline(program_json)
    dp.advance_time(3000)
    assert [r["period"] for r in unpack(fields, dp.monitor_take())] == [0, 1, 2, 3]


def test_real_time_samples_account_for_every_grid_point(program_json: bytes) -> None:
    dp = Dataplane()
    for p in (0, 1, 2):
        dp.add_memory_port(p)
    dp.load_pipeline(program_json)
    for p in (1, 2):
        dp.set_queue(p, 0, rate_pps=4000.0, depth_pkts=16)
    dp.start()
    try:
        fields = dp.monitor_start(1000, [(1, 0), (2, 0)], counters=[("I.to_port", 1)])
        sent = {1: 0, 2: 0}

        def send() -> None:
            rng = random.Random(3)
            end = time.monotonic() + 0.3
            while time.monotonic() < end:
                for _ in range(rng.randint(1, 8)):
                    dst = rng.choice((1, 2))
                    dp.inject(0, packet(dst, 0))
                    sent[dst] += 1
                time.sleep(rng.uniform(0, 0.002))

        t = threading.Thread(target=send)
        t.start()
        t.join()
        end_us = dp.now_us()
        records = []
        deadline = time.monotonic() + 20  # only catches a hang
        # Wait for a record after the last packet, with both queues empty.
        while (
            not records
            or records[-1]["time_us"] <= end_us
            or (records[-1]["q0.qdepth_pkts"] + records[-1]["q1.qdepth_pkts"])
        ):
            assert time.monotonic() < deadline, "no record after the traffic ended"
            time.sleep(0.005)
            records += unpack(fields, dp.monitor_take())
        dp.monitor_stop()
        records += unpack(fields, dp.monitor_take())
    finally:
        dp.stop()
    stats = dp.monitor_stats()
    periods = [r["period"] for r in records]
    assert periods[0] == 0
    assert all(a < b for a, b in zip(periods, periods[1:], strict=False))
    assert stats["overruns"] == 0
    assert stats["records"] == len(records)
    # The event loop and inject record every grid point passed before they change the
    # queues: none is missed, and each record is stamped with its own instant, t0 + k *
    # period, however late it was taken.
    assert stats["missed"] == 0
    assert stats["records"] == periods[-1] + 1
    offsets = {r["time_us"] - r["period"] * 1000 for r in records}
    assert len(offsets) == 1, offsets
    for i, p in enumerate((1, 2)):
        depth = records[0][f"q{i}.qdepth_pkts"]
        for r in records[1:]:
            depth += r[f"q{i}.arrivals"] - r[f"q{i}.departures"]
            assert r[f"q{i}.qdepth_pkts"] == depth
        arrived = sum(r[f"q{i}.arrivals"] for r in records)
        assert arrived + sum(r[f"q{i}.tm_drops"] for r in records) == sent[p]
        assert sum(r[f"q{i}.departures"] for r in records) == arrived
    assert sum(r["c0.packets"] for r in records) == sent[1]
