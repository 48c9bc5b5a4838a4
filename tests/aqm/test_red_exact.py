"""red.p4 on our switch against the reference model, bit for bit, over 100,000 packets.

Both see the same arrivals (times and ECN codepoints, from a seeded generator that
alternates overload, underload and idle gaps so every region of RED is visited), the
same departures (the switch's traffic manager draining at a fixed rate, in virtual
time), and the same random numbers: the model's draw() returns the q_r the program
drew, and the state after each packet (avg, count, q_r, occupancy, idle_since) and each
decision (from the program's counters) must be equal.
"""

import random

import pytest
from aqm_switch import aqm_dataplane
from red_switch import read_counters, read_state
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from schedule import DepartureSchedule

from p4aqm.controller.disciplines import RedConfig
from p4aqm.models.red import Decision, RedQueue, RedTables
from programs import CompiledProgram

PACKETS = 100_000
SERVICE_US = 1000  # the bottleneck drains 1000 packets/s
DECISION_OF_COUNTER = (
    Decision.MARK,
    Decision.DROP_EARLY,
    Decision.DROP_FORCED,
    Decision.DROP_OVERFLOW,
)


def frames() -> dict[int, bytes]:
    def frame(ecn: int) -> bytes:
        return bytes(Ether() / IP(dst="10.0.2.1", tos=ecn) / UDP() / (b"x" * 18))

    return {ecn: frame(ecn) for ecn in (0, 1, 2)}


def arrival_gaps_us(rng: random.Random) -> list[int]:
    """Inter-arrival gaps: phases of overload, underload and idleness."""
    gaps: list[int] = []
    while len(gaps) < PACKETS:
        phase = rng.random()
        mean = 700 if phase < 0.5 else 1800 if phase < 0.9 else 40_000
        gaps += [max(1, round(rng.expovariate(1 / mean))) for _ in range(rng.randint(50, 800))]
    return gaps[:PACKETS]


@pytest.mark.parametrize(
    "aqm",
    [
        RedConfig(discipline="red", min_th=5, max_th=15, max_p=0.1, w_q=1 / 64, limit_pkts=40),
        RedConfig(
            discipline="red",
            min_th=5,
            max_th=15,
            max_p=0.1,
            w_q=1 / 64,
            limit_pkts=40,
            gentle=True,
            ecn=True,
        ),
    ],
    ids=["red", "gentle-ecn"],
)
def test_program_matches_model(red_program: CompiledProgram, aqm: RedConfig) -> None:
    dp = aqm_dataplane(red_program, aqm, rate_pps=1e6 / SERVICE_US, seed=7)
    model = RedQueue(RedTables.from_params(aqm.params()))
    rng = random.Random(11)
    packets = frames()
    seen: dict[Decision, int] = dict.fromkeys(Decision, 0)
    counters = read_counters(dp)
    previous_q_r = read_state(dp).q_r
    schedule = DepartureSchedule(SERVICE_US)
    now_us = 0
    for index, gap in enumerate(arrival_gaps_us(rng)):
        now_us += gap
        dp.advance_time(now_us - dp.now_us())
        dp.take_output()
        for departure in schedule.due(now_us):
            model.depart(*departure)
        ecn = rng.choice((0, 1, 2))
        dp.inject(1, packets[ecn])
        state = read_state(dp)
        draws: list[int] = []

        def draw(value: int = state.q_r, draws: list[int] = draws) -> int:
            draws.append(value)
            return value

        decision = model.arrive(now_us, ecn != 0, draw)
        # The model drew where the program must have drawn: its q_r is a new number (the
        # run is seeded, so a repeat of the old value would fail every time, not flake).
        assert (state.q_r != previous_q_r) == bool(draws), f"packet {index}: random()"
        previous_q_r = state.q_r
        if decision in (Decision.ENQUEUE, Decision.MARK):
            schedule.admit(now_us)
            for departure in schedule.due(now_us):  # an idle queue: it leaves at once
                model.depart(*departure)

        after = read_counters(dp)
        pairs = zip(DECISION_OF_COUNTER, counters, after, strict=True)
        changed = [kind for kind, before, now in pairs if now != before]
        counters = after
        switch_decision = changed[0] if changed else Decision.ENQUEUE
        assert len(changed) <= 1
        assert switch_decision == decision, f"packet {index} at {now_us} us"
        assert (state.avg, state.count, state.q_r, state.occupancy) == (
            model.avg,
            model.count,
            model.q_r,
            model.occupancy,
        ), f"packet {index} at {now_us} us"
        assert state.idle_since_us == model.idle_since_us, f"packet {index}"
        seen[decision] += 1

    # The workload must have visited every region the variant has.
    assert seen[Decision.ENQUEUE] and seen[Decision.DROP_EARLY]
    assert seen[Decision.DROP_FORCED] or aqm.gentle
    if aqm.ecn:
        assert seen[Decision.MARK]
