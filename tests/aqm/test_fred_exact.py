"""fred.p4 on our switch against the reference model, bit for bit, over 100,000 packets.

Ten flows share one bottleneck, one of them sending half of all packets: UDP flows that
differ in addresses or ports, a TCP one and one without ports (protocol 1), whose ports
hash as zeros. Both sides see the same arrivals (a seeded generator alternating overload,
underload and idle gaps), the same departures (the traffic manager draining at a fixed
rate, in virtual time) and the same random numbers (the model's draw() returns the q_r
the program drew). After each packet the port's state (avg, count, q_r, occupancy,
nactive, idle_since), the arriving flow's slot (occupancy, strikes) and the decision (from the
program's counters) must be equal. With 8 slots for 10 flows some flows share a slot,
so the model's copy of the hash and of the collisions is checked too.
"""

import random
from collections.abc import Callable
from ipaddress import IPv4Address

import pytest
from aqm_switch import aqm_dataplane
from fred_switch import read_counters, read_flow, read_state
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from schedule import DepartureSchedule

from p4aqm.controller.disciplines import FredConfig
from p4aqm.models.fred import Decision, FiveTuple, FredQueue, FredTables, crc16
from programs import CompiledProgram

PACKETS = 100_000
SERVICE_US = 1000  # the bottleneck drains 1000 packets/s
DECISION_OF_COUNTER = (
    Decision.DROP_FLOW,
    Decision.DROP_EARLY,
    Decision.DROP_FORCED,
    Decision.DROP_OVERFLOW,
)
PROTO_UDP, PROTO_TCP, PROTO_ICMP = 17, 6, 1
# (source, destination, protocol, ports); the first is the aggressive flow.
FLOWS = [
    *((f"10.0.1.{i + 1}", "10.0.2.1", PROTO_UDP, 5000, 5001) for i in range(5)),
    ("10.0.1.1", "10.0.2.1", PROTO_UDP, 5002, 5001),
    ("10.0.1.1", "10.0.2.1", PROTO_UDP, 5000, 5003),
    ("10.0.1.1", "10.0.2.9", PROTO_TCP, 40000, 80),
    ("10.0.1.2", "10.0.2.9", PROTO_ICMP, 7, 7),
    ("10.0.1.3", "10.0.2.9", PROTO_UDP, 53, 53),
]


def frame(src: str, dst: str, protocol: int, sport: int, dport: int) -> bytes:
    # The same bytes after IPv4 for every protocol: for TCP they are its ports, and for
    # ICMP bytes the program does not parse as ports.
    l4 = UDP(sport=sport, dport=dport)
    return bytes(Ether() / IP(src=src, dst=dst, proto=protocol) / l4 / (b"x" * 18))


def five_tuple(src: str, dst: str, protocol: int, sport: int, dport: int) -> FiveTuple:
    if protocol not in (PROTO_TCP, PROTO_UDP):
        sport = dport = 0  # no ports parsed: the program hashes zeros
    return FiveTuple(int(IPv4Address(src)), int(IPv4Address(dst)), protocol, sport, dport)


def arrivals(rng: random.Random) -> list[tuple[int, int]]:
    """(inter-arrival gap, flow index): phases of overload, underload and idleness, in
    which flow 0 sends half the packets or all flows send alike (then every flow is
    above its share in overload, and the total average can reach max_th)."""
    result: list[tuple[int, int]] = []
    while len(result) < PACKETS:
        phase = rng.random()
        mean = 400 if phase < 0.5 else 1800 if phase < 0.9 else 40_000
        skewed = rng.random() < 0.5
        for _ in range(rng.randint(50, 800)):
            gap = max(1, round(rng.expovariate(1 / mean)))
            flow = 0 if skewed and rng.random() < 0.5 else rng.randrange(len(FLOWS))
            result.append((gap, flow))
    return result[:PACKETS]


@pytest.mark.parametrize(
    "aqm",
    [
        FredConfig(
            discipline="fred",
            min_th=4,
            max_th=12,
            max_p=0.1,
            w_q=1 / 32,
            limit_pkts=30,
            flow_slots=8,
            slot_base=40,
        ),
        FredConfig(
            discipline="fred",
            min_th=3,
            max_th=10,
            max_p=0.2,
            w_q=1 / 16,
            limit_pkts=24,
            min_q=1,
            max_q=6,
            flow_slots=8,
        ),
    ],
    ids=["paper-max-q", "small-max-q"],
)
def test_program_matches_model(
    p4src_program: Callable[[str], CompiledProgram], aqm: FredConfig
) -> None:
    dp = aqm_dataplane(p4src_program("fred"), aqm, rate_pps=1e6 / SERVICE_US, seed=7)
    config = FredTables.from_params(aqm.params())
    model = FredQueue(config.red, fred=config)
    rng = random.Random(11)
    packets = [frame(*flow) for flow in FLOWS]
    slots = [config.slot(five_tuple(*flow)) for flow in FLOWS]
    assert len(set(slots)) < len(FLOWS), "the workload must have flows sharing a slot"
    seen: dict[Decision, int] = dict.fromkeys(Decision, 0)
    counters = read_counters(dp)
    previous_q_r = read_state(dp).red.q_r
    # Egress counts each packet out of its flow: the schedule carries the flow's slot.
    schedule = DepartureSchedule(SERVICE_US)
    now_us = 0
    for index, (gap, flow) in enumerate(arrivals(rng)):
        now_us += gap
        dp.advance_time(now_us - dp.now_us())
        dp.take_output()
        for departure in schedule.due(now_us):
            model.depart_flow(*departure)
        dp.inject(1, packets[flow])
        state = read_state(dp)
        red = state.red
        draws: list[int] = []

        def draw(value: int = red.q_r, draws: list[int] = draws) -> int:
            draws.append(value)
            return value

        slot = slots[flow]
        decision = model.arrive_flow(now_us, slot, draw)
        where = f"packet {index} at {now_us} us, flow {flow}"
        # The model drew where the program must have drawn: its q_r is a new number.
        assert (red.q_r != previous_q_r) == bool(draws), f"{where}: random()"
        previous_q_r = red.q_r
        if decision is Decision.ENQUEUE:
            schedule.admit(now_us, slot)
            for departure in schedule.due(now_us):  # an idle queue: it leaves at once
                model.depart_flow(*departure)

        after = read_counters(dp)
        pairs = zip(DECISION_OF_COUNTER, counters, after, strict=True)
        changed = [kind for kind, before, now in pairs if now != before]
        counters = after
        assert len(changed) <= 1
        assert (changed[0] if changed else Decision.ENQUEUE) == decision, where
        assert (red.avg, red.count, red.q_r, red.occupancy, state.nactive) == (
            model.avg,
            model.count,
            model.q_r,
            model.occupancy,
            model.nactive,
        ), where
        assert read_flow(dp, slot) == (
            model.flow_occupancy.get(slot, 0),
            model.strikes.get(slot, 0),
        ), where
        assert red.idle_since_us == model.idle_since_us, where
        seen[decision] += 1

    # The workload must have visited every region of FRED.
    for kind in (Decision.ENQUEUE, Decision.DROP_FLOW, Decision.DROP_EARLY):
        assert seen[kind], (kind, seen)
    assert seen[Decision.DROP_FORCED] or seen[Decision.DROP_OVERFLOW], seen

    # Once the queue has drained, every flow is forgotten: no packets, no strikes.
    dp.advance_time(schedule.last_us + SERVICE_US - dp.now_us())
    dp.take_output()
    assert read_state(dp).red.occupancy == read_state(dp).nactive == 0
    region = range(config.slot_base, config.slot_base + config.slot_mask + 1)
    assert all(read_flow(dp, s) == (0, 0) for s in region)


def test_crc16_is_v1model_crc16() -> None:
    # CRC-16/ARC's check value, the one dataplane/src/pipeline/checksum.rs is tested against.
    assert crc16(b"123456789") == 0xBB3D
