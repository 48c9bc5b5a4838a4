"""The PIE reference model: its update, its safeguards, and how closely it follows RFC
8033's pseudocode run in floating point.

(The model against pie.p4 on our switch, bit for bit: tests/aqm/test_pie_exact.py.)
"""

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from fifo_link import Arrival, Link, agreement, phased_arrivals

from p4aqm.models.pie import (
    PROB_BITS,
    PROB_MAX,
    PieDecision,
    PieParams,
    PieQueue,
    PieTables,
    gain,
    prob,
)

T_UPDATE_US = 15_000


def pie(**kwargs: object) -> PieQueue:
    return PieQueue(PieTables.from_params(PieParams(**kwargs)))  # type: ignore[arg-type]


def updated(queue: PieQueue, qdelay_us: int, updates: int) -> PieQueue:
    """`updates` updates with the queueing delay held at qdelay_us."""
    queue.update(1)
    for k in range(1, updates + 1):
        queue.qdelay_us = qdelay_us
        queue.update(1 + k * T_UPDATE_US)
    return queue


def test_gains_in_fixed_point() -> None:
    assert gain(0.125) == 137439 and gain(1.25) == 1374390
    assert prob(1.0) == PROB_MAX


def test_first_update_from_zero_scales_by_2048() -> None:
    """qdelay 35 ms against 15 ms: p = 0.125 * 0.02 + 1.25 * 0.035 = 0.046, / 2048."""
    queue = updated(pie(), 35_000, 1)
    expected = (0.125 * 0.020 + 1.25 * 0.035) / 2048
    assert queue.drop_prob / 2**PROB_BITS == pytest.approx(expected, rel=1e-3)


def test_persistent_delay_raises_the_probability_by_at_most_2_percent() -> None:
    queue = updated(pie(), 100_000, 200)
    assert queue.drop_prob == PROB_MAX
    queue.drop_prob = prob(0.5)
    queue.qdelay_us = 400_000
    queue.update(1 + 201 * T_UPDATE_US)
    assert queue.drop_prob == prob(0.5) + prob(0.02)


def test_probability_decays_when_both_delays_are_zero() -> None:
    queue = updated(pie(), 100_000, 50)
    high = queue.drop_prob
    updated_again = [queue.drop_prob]
    for k in range(51, 60):
        queue.qdelay_us = 0
        queue.update(1 + k * T_UPDATE_US)
        updated_again.append(queue.drop_prob)
    assert updated_again[-1] < high
    # Once both delays are 0, each update takes p * 0.98 (and the negative step) off.
    assert updated_again[-1] < updated_again[-2] * 0.98 + 1


def test_burst_allowance_and_safeguards() -> None:
    queue = pie(max_burst_us=150_000)
    queue.update(0)
    assert queue.burst_allowance_us == 150_000
    queue.drop_prob = PROB_MAX
    queue.occupancy = 10
    assert queue.arrive(1, False, lambda: 0) is PieDecision.ENQUEUE  # the burst allowance
    queue.burst_allowance_us, queue.qdelay_old_us = 0, 20_000
    queue.occupancy = 2
    assert queue.arrive(2, False, lambda: 0) is PieDecision.ENQUEUE  # 2 packets queued
    assert queue.arrive(3, False, lambda: 0) is PieDecision.DROP_EARLY


@pytest.mark.parametrize(
    ("drop_prob", "expected"), [(0.05, PieDecision.MARK), (0.2, PieDecision.DROP_EARLY)]
)
def test_ecn_marks_only_up_to_ten_percent(drop_prob: float, expected: PieDecision) -> None:
    queue = pie(ecn=True)
    queue.update(0)
    queue.burst_allowance_us, queue.qdelay_old_us, queue.occupancy = 0, 20_000, 10
    queue.drop_prob = prob(drop_prob)
    assert queue.arrive(1, True, lambda: 0) is expected
    assert queue.arrive(1, False, lambda: 0) is PieDecision.DROP_EARLY


@dataclass
class RfcPie:
    """RFC 8033's pseudocode in floating point, with its timer: an update every t_update
    whether packets arrive or not; qdelay by the timestamp method."""

    params: PieParams
    drop_prob: float = 0.0
    qdelay: float = 0.0  # us
    qdelay_old: float = 0.0
    burst_allowance: float = 0.0

    def __post_init__(self) -> None:
        self.burst_allowance = self.params.max_burst_us

    def update(self) -> None:
        cfg = self.params
        p = (
            cfg.alpha * (self.qdelay - cfg.target_us) + cfg.beta * (self.qdelay - self.qdelay_old)
        ) / 1e6
        for bound, divisor in (
            (1e-6, 2048),
            (1e-5, 512),
            (1e-4, 128),
            (1e-3, 32),
            (1e-2, 8),
            (1e-1, 2),
        ):
            if self.drop_prob < bound:
                p /= divisor
                break
        if self.drop_prob >= 0.1 and p > 0.02:
            p = 0.02
        self.drop_prob = min(max(self.drop_prob + p, 0.0), 1.0)
        if self.qdelay == 0 and self.qdelay_old == 0:
            self.drop_prob *= 0.98
        self.burst_allowance = max(self.burst_allowance - cfg.t_update_us, 0.0)
        half = cfg.target_us / 2
        if self.drop_prob == 0 and self.qdelay < half and self.qdelay_old < half:
            self.burst_allowance = cfg.max_burst_us
        self.qdelay_old = self.qdelay

    def decide(self, arrival: Arrival, queued: int) -> str:
        if self.burst_allowance > 0 or queued <= 2:
            return "enqueue"
        if self.qdelay_old < self.params.target_us / 2 and self.drop_prob < 0.2:
            return "enqueue"
        if arrival.u / 2**32 >= self.drop_prob:
            return "enqueue"
        mark = self.params.ecn and arrival.ect and self.drop_prob <= 0.1
        return "mark" if mark else "drop_early"


def departing(on_depart: Callable[[int, int], None]) -> Link:
    def send(now_us: int, queue: deque[tuple[Arrival, int]]) -> Arrival:
        packet, enqueued = queue.popleft()
        on_depart(now_us - enqueued, len(queue))
        return packet

    return Link(send)


def run_model(params: PieParams, arrivals: list[Arrival]) -> list[str]:
    model = PieQueue(PieTables.from_params(params))
    link = departing(model.depart)
    fates = []
    for arrival in arrivals:
        link.serve(arrival.time_us)
        decision = model.arrive(arrival.time_us, arrival.ect, lambda u=arrival.u: u)
        fates.append(decision.value)
        if decision in (PieDecision.ENQUEUE, PieDecision.MARK):
            link.enqueue(arrival)
    return fates


def run_rfc(params: PieParams, arrivals: list[Arrival]) -> list[str]:
    rfc = RfcPie(params)

    def depart(sojourn_us: int, left: int) -> None:
        rfc.qdelay = 0 if left == 0 else sojourn_us

    link = departing(depart)
    fates = []
    next_update_us = params.t_update_us
    for arrival in arrivals:
        while next_update_us <= arrival.time_us:
            link.serve(next_update_us)
            rfc.update()
            next_update_us += params.t_update_us
        link.serve(arrival.time_us)
        fate = rfc.decide(arrival, len(link.queue))
        if fate != "drop_early" and len(link.queue) >= params.limit_pkts:
            fate = "drop_overflow"
        fates.append(fate)
        if fate in ("enqueue", "mark"):
            link.enqueue(arrival)
    return fates


@pytest.mark.parametrize("ecn", [False, True], ids=["pie", "pie-ecn"])
def test_agreement_with_the_rfc_pseudocode(ecn: bool) -> None:
    """The model and RFC 8033 in floating point on the same 100,000 arrivals with the same
    random numbers. They differ by the fixed point (2^-32 probabilities, gains to 2^-40
    per us), and by when the probability is updated: the model at the first arrival
    after t_update, the RFC on its timer, also while the queue is idle. A decision that
    differs changes the queue, so agreement is statistical; the bounds hold for this
    seeded workload with a margin."""
    params = PieParams(ecn=ecn, limit_pkts=200)
    arrivals = phased_arrivals(seed=9, packets=100_000, idle_mean_us=300_000)
    model = run_model(params, arrivals)
    rfc = run_rfc(params, arrivals)
    same, rate_difference = agreement(model, rfc, {"drop_early", "drop_overflow"})
    print(
        f"\nPIE{' ECN' if ecn else ''} vs RFC 8033 in float: {same:.4f} identical fates;"
        f" early drops {model.count('drop_early')} vs {rfc.count('drop_early')},"
        f" marks {model.count('mark')} vs {rfc.count('mark')},"
        f" overflows {model.count('drop_overflow')} vs {rfc.count('drop_overflow')};"
        f" drop rate difference {rate_difference:+.4f}"
    )
    assert same >= 0.97
    assert abs(rate_difference) <= 0.005
