"""cbt.p4 on our switch against the reference model, bit for bit, over 100,000 packets.

Both see the same arrivals (times, classes and ECN codepoints from a seeded generator
whose phases alternate overload, underload and idle gaps, and mix the classes
differently in each: a UDP blast, TCP alone, everything together), the same departures
(the traffic manager draining at a fixed rate in virtual time), and the same random
numbers (the model's draw() returns the q_r the program drew). After every packet each
class's avg, occupancy and idle_since, the port's occupancy, RED's count and q_r, and the
decision
from the program's per-class counters must be equal.
"""

import random
from collections.abc import Callable

import pytest
from aqm_switch import aqm_dataplane
from cbt_switch import DSCP_EF, cbt_config, cbt_tables, read_counters, read_state
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.l2 import Ether
from schedule import DepartureSchedule

from p4aqm.controller.disciplines import CbtConfig
from p4aqm.models.cbt import CbtDecision, CbtQueue, TrafficClass
from programs import CompiledProgram

PACKETS = 100_000
SERVICE_US = 1000  # the bottleneck drains 1000 packets/s
# Class weights (TCP, marked, unmarked) of each kind of phase.
MIXES = ((0.2, 0.1, 0.7), (0.9, 0.05, 0.05), (0.4, 0.3, 0.3), (0.1, 0.6, 0.3))
RED = {"min_th": 5, "max_th": 15, "max_p": 0.1, "w_q": 1 / 16, "limit_pkts": 30}


def frames() -> dict[tuple[TrafficClass, int], bytes]:
    def frame(traffic_class: TrafficClass, ecn: int) -> bytes:
        if traffic_class is TrafficClass.TCP:
            ip, l4 = IP(dst="10.0.2.1", tos=ecn), TCP(sport=4000, dport=80)
        else:
            dscp = DSCP_EF if traffic_class is TrafficClass.MARKED else 0
            ip, l4 = IP(dst="10.0.2.1", tos=dscp << 2 | ecn), UDP(sport=5000, dport=5004)
        return bytes(Ether() / ip / l4 / (b"x" * 18))

    return {(c, ecn): frame(c, ecn) for c in TrafficClass for ecn in (0, 1, 2)}


def arrivals(rng: random.Random) -> list[tuple[int, TrafficClass]]:
    """(inter-arrival gap, class) in phases of overload, underload and idleness."""
    out: list[tuple[int, TrafficClass]] = []
    while len(out) < PACKETS:
        phase = rng.random()
        mean = 500 if phase < 0.5 else 1800 if phase < 0.9 else 40_000
        mix = rng.choice(MIXES)
        for _ in range(rng.randint(50, 800)):
            gap = max(1, round(rng.expovariate(1 / mean)))
            out.append((gap, rng.choices(list(TrafficClass), weights=mix)[0]))
    return out[:PACKETS]


@pytest.mark.parametrize(
    "aqm",
    [
        cbt_config(**RED, marked_th=8, unmarked_th=2),
        # A zero threshold admits an unmarked packet only at avg == 0, so the boundary of
        # the comparison (avg > threshold, not >=) is checked too.
        cbt_config(**RED, gentle=True, ecn=True, marked_th=8, unmarked_th=0),
    ],
    ids=["red", "gentle-ecn-zero-threshold"],
)
def test_program_matches_model(
    p4src_program: Callable[[str], CompiledProgram], aqm: CbtConfig
) -> None:
    dp = aqm_dataplane(p4src_program("cbt"), aqm, rate_pps=1e6 / SERVICE_US, seed=7)
    model = CbtQueue(cbt_tables(aqm))
    rng = random.Random(11)
    packets = frames()
    seen: dict[tuple[CbtDecision, TrafficClass], int] = {}
    counters = read_counters(dp)
    previous_q_r = read_state(dp).classes[TrafficClass.TCP].q_r
    # Egress takes each packet off its class: the schedule carries the class.
    schedule = DepartureSchedule(SERVICE_US)
    now_us = 0
    seen_tcp = False
    for index, (gap, traffic_class) in enumerate(arrivals(rng)):
        now_us += gap
        dp.advance_time(now_us - dp.now_us())
        dp.take_output()
        for departure in schedule.due(now_us):
            model.depart(*departure)
        ecn = rng.choice((0, 1, 2))
        dp.inject(1, packets[traffic_class, ecn])
        state = read_state(dp)
        tcp_state = state.classes[TrafficClass.TCP]
        draws: list[int] = []

        def draw(value: int = tcp_state.q_r, draws: list[int] = draws) -> int:
            draws.append(value)
            return value

        decision = model.arrive(now_us, traffic_class, ecn != 0, draw)
        where = f"packet {index} ({traffic_class.name}) at {now_us} us"
        # The model drew where the program must have drawn: its q_r is a new number (the
        # run is seeded, so a repeat of the old value would fail every time, not flake).
        assert (tcp_state.q_r != previous_q_r) == bool(draws), f"{where}: random()"
        previous_q_r = tcp_state.q_r
        if decision in (CbtDecision.ENQUEUE, CbtDecision.MARK):
            schedule.admit(now_us, traffic_class)
            for departure in schedule.due(now_us):  # an idle queue: it leaves at once
                model.depart(*departure)

        after = read_counters(dp)
        changed = [key for key, count in after.items() if count != counters[key]]
        counters = after
        assert changed in ([], [(decision, traffic_class)]), where
        assert (changed == []) == (decision is CbtDecision.ENQUEUE), where
        tcp = model.classes[TrafficClass.TCP]
        assert (state.occupancy, tcp_state.q_r) == (model.occupancy, tcp.q_r), where
        # The register starts at 0 and the model at -1 ("not on the ramp"); the first TCP
        # arrival, below min_th, sets both to -1.
        if seen_tcp := seen_tcp or traffic_class is TrafficClass.TCP:
            assert tcp_state.count == tcp.count, where
        for c, queue in model.classes.items():
            got = state.classes[c]
            expected = (queue.avg, queue.occupancy, queue.idle_since_us)
            assert (got.avg, got.occupancy, got.idle_since_us) == expected, f"{where}: {c.name}"
        seen[decision, traffic_class] = seen.get((decision, traffic_class), 0) + 1

    # The workload must have visited every region: RED's for TCP, both thresholds, the
    # shared limit.
    for c in TrafficClass:
        assert seen.get((CbtDecision.ENQUEUE, c)), c
    assert seen.get((CbtDecision.DROP_EARLY, TrafficClass.TCP))
    assert seen.get((CbtDecision.DROP_FORCED, TrafficClass.TCP)) or aqm.gentle
    assert seen.get((CbtDecision.DROP_THRESHOLD, TrafficClass.MARKED))
    assert seen.get((CbtDecision.DROP_THRESHOLD, TrafficClass.UNMARKED))
    assert any(decision is CbtDecision.DROP_OVERFLOW for decision, _ in seen)
    if aqm.ecn:
        assert seen.get((CbtDecision.MARK, TrafficClass.TCP))
