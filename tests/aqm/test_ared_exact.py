"""ared.p4 on our switch against the reference model, bit for bit, over 100,000 packets.

As test_red_exact.py for red.p4: the same arrivals, departures (the traffic manager in
virtual time) and random numbers reach both, and the state after each packet and each
decision must be equal, here with ARED's max_p and next adaptation time read back from
their registers too. This is how the data-plane adaptation is verified: every
adaptation the program makes (when, and to which max_p) is the model's, and the
workload's long phases of overload and underload drive max_p both up and down.
"""

import random
from collections.abc import Callable

import pytest
from aqm_switch import aqm_dataplane
from ared_switch import read_adaptation
from red_switch import read_counters, read_state
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from schedule import DepartureSchedule

from p4aqm.controller.disciplines import AredConfig
from p4aqm.models.ared import AredQueue, AredTables
from p4aqm.models.red import Decision
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
    """Inter-arrival gaps: phases of heavy overload (into gentle's ramp and beyond),
    overload, underload and idleness, each long enough (0.5 to 3 s) to span several
    adaptation intervals, so max_p climbs and falls."""
    gaps: list[int] = []
    while len(gaps) < PACKETS:
        phase = rng.random()
        mean = 400 if phase < 0.2 else 700 if phase < 0.5 else 1500 if phase < 0.9 else 40_000
        count = max(1, round(rng.uniform(0.5e6, 3e6) / mean))
        gaps += [max(1, round(rng.expovariate(1 / mean))) for _ in range(count)]
    return gaps[:PACKETS]


@pytest.mark.parametrize("ecn", [False, True], ids=["ared", "ared-ecn"])
def test_program_matches_model(p4src_program: Callable[[str], CompiledProgram], ecn: bool) -> None:
    aqm = AredConfig(
        discipline="ared",
        min_th=5,
        max_th=15,
        max_p=0.1,
        w_q=1 / 64,
        limit_pkts=40,
        ecn=ecn,
        interval_s=0.1,
    )
    dp = aqm_dataplane(p4src_program("ared"), aqm, rate_pps=1e6 / SERVICE_US, seed=7)
    config = AredTables.from_params(aqm.params())
    model = AredQueue.of(config)
    rng = random.Random(11)
    packets = frames()
    seen: dict[Decision, int] = dict.fromkeys(Decision, 0)
    increases = decreases = on_gentle_ramp = 0
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
        ecn_bits = rng.choice((0, 1, 2))
        dp.inject(1, packets[ecn_bits])
        state = read_state(dp)
        max_p, next_adapt_us = read_adaptation(dp)
        draws: list[int] = []

        def draw(value: int = state.q_r, draws: list[int] = draws) -> int:
            draws.append(value)
            return value

        max_p_before = model.max_p
        decision = model.arrive(now_us, ecn_bits != 0, draw)
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
        assert (max_p, next_adapt_us) == (model.max_p, model.next_adapt_us), f"packet {index}"
        assert (state.avg, state.count, state.q_r, state.occupancy) == (
            model.avg,
            model.count,
            model.q_r,
            model.occupancy,
        ), f"packet {index} at {now_us} us"
        assert state.idle_since_us == model.idle_since_us, f"packet {index}"
        seen[decision] += 1
        on_gentle_ramp += config.red.max_th_q16 <= model.avg < config.red.ramp_end_q16
        if index:  # the first packet loads the initial max_p: not an adaptation
            increases += model.max_p > max_p_before
            decreases += model.max_p < max_p_before

    # The regions of gentle RED, and the adaptation both ways, many times.
    assert seen[Decision.ENQUEUE] and seen[Decision.DROP_EARLY]
    assert on_gentle_ramp
    if ecn:  # with ECT and not-ECT mixed, the ECN run also marks, and is driven past 2 max_th
        assert seen[Decision.MARK] and seen[Decision.DROP_FORCED]
    assert increases >= 20 and decreases >= 20, (increases, decreases)
