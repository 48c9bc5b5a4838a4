"""The CoDel reference model: its control-law table, its states, and how closely it
follows RFC 8289's pseudocode run in floating point.

(The model against codel.p4 on our switch, bit for bit: tests/aqm/test_codel_exact.py.)
"""

import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from fifo_link import Arrival, Link, agreement, phased_arrivals

from p4aqm.models.codel import (
    CONTROL_LAW_BIN_RATIO,
    CodelDecision,
    CodelParams,
    CodelQueue,
    CodelTables,
    law_table,
)
from p4aqm.models.fixed_point import REGISTER_MAX

PARAMS = CodelParams(target_us=5000, interval_us=100_000, limit_pkts=200)


@pytest.mark.parametrize("interval_us", [1, 1000, 100_000, REGISTER_MAX])
def test_control_law_within_one_percent_and_half_a_microsecond(interval_us: int) -> None:
    """Every count from 1 to 2^32 - 1 is in exactly one bin, and the law is off by at most
    1 % of interval / sqrt(count) + 0.5 us: checked at both ends of every bin, where the
    exact law is farthest from the bin's value."""
    table = law_table(interval_us)
    assert table[0].low == 1 and table[-1].high == REGISTER_MAX
    assert all(a.high + 1 == b.low for a, b in zip(table, table[1:], strict=False))
    assert len(table) < 600
    bound = CONTROL_LAW_BIN_RATIO**0.25 - 1
    assert bound < 0.01
    for entry in table:
        for count in (entry.low, entry.high):
            exact = interval_us / math.sqrt(count)
            assert abs(entry.value - exact) <= bound * exact + 0.5, (count, entry)


def queue_at(ecn: bool = False) -> CodelQueue:
    return CodelQueue(CodelTables.from_params(CodelParams(5000, 100_000, ecn, 200)))


def steady(queue: CodelQueue, sojourn_us: int, until_us: int, ect: bool = False) -> list:
    """A departure every ms with the given sojourn and a long queue behind it."""
    return [queue.depart(t, sojourn_us, 10, ect) for t in range(1000, until_us, 1000)]


def test_no_drops_below_target() -> None:
    assert set(steady(queue_at(), 4999, 2_000_000)) == {CodelDecision.PASS}


def test_first_drop_an_interval_after_the_sojourn_rises() -> None:
    queue = queue_at()
    decisions = steady(queue, 5000, 400_000)
    first = decisions.index(CodelDecision.DROP)
    # Above from the first departure (1 ms); ok_to_drop from 101 ms on.
    assert (first + 1) * 1000 == 101_000
    drops = [i for i, d in enumerate(decisions) if d is CodelDecision.DROP]
    # The next drops come interval / sqrt(count) apart: 100, 70.7, 57.7 ms.
    assert [b - a for a, b in zip(drops, drops[1:], strict=False)][:3] == [100, 71, 58]


def test_nearly_empty_queue_is_not_above_target() -> None:
    queue = queue_at()
    assert {queue.depart(t, 9000, 1, False) for t in range(1000, 500_000, 1000)} == {
        CodelDecision.PASS
    }


def test_count_resumes_when_dropping_restarts_soon() -> None:
    queue = queue_at()
    steady(queue, 6000, 600_000)
    count = queue.count
    queue.depart(600_000, 100, 10, False)  # below target: leave the dropping state
    assert not queue.dropping
    decisions = [queue.depart(t, 6000, 10, False) for t in range(601_000, 800_000, 1000)]
    assert CodelDecision.DROP in decisions
    assert queue.count >= count - queue.lastcount


def test_ecn_marks_ect_and_drops_not_ect() -> None:
    ect = steady(queue_at(ecn=True), 6000, 400_000, ect=True)
    assert CodelDecision.MARK in ect and CodelDecision.DROP not in ect
    not_ect = steady(queue_at(ecn=True), 6000, 400_000, ect=False)
    assert CodelDecision.DROP in not_ect and CodelDecision.MARK not in not_ect


def test_count_saturates() -> None:
    queue = queue_at()
    queue.dropping, queue.count, queue.first_above_time_us = True, REGISTER_MAX, 1
    assert queue.depart(10**9, 6000, 10, False) is CodelDecision.DROP
    assert queue.count == REGISTER_MAX


@dataclass
class RfcCodel:
    """RFC 8289's pseudocode in floating point: the exact control law, and the loop that
    drops at one dequeue until the next drop is not due. With `once`, a dequeue decides
    on one packet, which spends its link time dropped or not, as on v1model."""

    target: float
    interval: float
    ecn: bool
    fates: list[str]
    once: bool = False
    first_above_time: float = 0.0
    dropping: bool = False
    count: int = 0
    lastcount: int = 0
    drop_next: float = 0.0

    def control_law(self, t: float) -> float:
        return t + self.interval / math.sqrt(self.count)

    def dodequeue(self, now: float, queue: deque) -> tuple[Arrival | None, bool]:
        if not queue:
            self.first_above_time = 0.0
            return None, False
        packet, enqueued = queue.popleft()
        if now - enqueued < self.target or len(queue) <= 1:
            self.first_above_time = 0.0
            return packet, False
        if self.first_above_time == 0.0:
            self.first_above_time = now + self.interval
            return packet, False
        return packet, now >= self.first_above_time

    def drop(self, packet: Arrival) -> bool:
        """Marks an ECT packet (True: it is sent) or drops it."""
        marked = self.ecn and packet.ect
        self.fates[packet.index] = "mark" if marked else "drop"
        return marked

    def dequeue(self, now: int, queue: deque) -> Arrival | None:
        packet, ok_to_drop = self.dodequeue(now, queue)
        if packet is None:
            self.dropping = False
        elif self.dropping:
            packet = self.keep_dropping(now, queue, packet, ok_to_drop)
        elif ok_to_drop:
            packet = self.start_dropping(now, queue, packet)
        return packet

    def keep_dropping(self, now: int, queue: deque, packet: Arrival, ok: bool) -> Arrival | None:
        self.dropping = ok
        while packet is not None and self.dropping and now >= self.drop_next:
            self.count += 1
            if self.drop(packet) or self.once:
                self.drop_next = self.control_law(self.drop_next)
                return packet
            packet, ok = self.dodequeue(now, queue)
            self.dropping = ok and packet is not None
            if self.dropping:
                self.drop_next = self.control_law(self.drop_next)
        return packet

    def start_dropping(self, now: int, queue: deque, packet: Arrival) -> Arrival | None:
        sent = self.drop(packet)
        self.dropping = True
        delta = self.count - self.lastcount
        recent = now - self.drop_next < 16 * self.interval
        self.count = delta if delta > 1 and recent else 1
        self.drop_next = self.control_law(now)
        self.lastcount = self.count
        return packet if sent or self.once else self.dodequeue(now, queue)[0]


def run_model(params: CodelParams, arrivals: list[Arrival]) -> list[str]:
    model = CodelQueue(CodelTables.from_params(params))
    fates = ["pass"] * len(arrivals)

    def send(now_us: int, queue: deque) -> Arrival:
        packet, enqueued = queue.popleft()
        decision = model.depart(now_us, now_us - enqueued, len(queue), packet.ect)
        fates[packet.index] = decision.value
        return packet

    return drive(Link(send), arrivals, fates, model.arrive)


def run_rfc(params: CodelParams, arrivals: list[Arrival], once: bool) -> list[str]:
    fates = ["pass"] * len(arrivals)
    rfc = RfcCodel(params.target_us, params.interval_us, params.ecn, fates, once)
    link = Link(rfc.dequeue)
    return drive(link, arrivals, fates, lambda: len(link.queue) < params.limit_pkts)


def drive(
    link: Link, arrivals: list[Arrival], fates: list[str], admit: Callable[[], bool]
) -> list[str]:
    for arrival in arrivals:
        link.serve(arrival.time_us)
        if admit():
            link.enqueue(arrival)
        else:
            fates[arrival.index] = "overflow"
    link.serve(arrivals[-1].time_us + 10**9)
    return fates


@pytest.mark.parametrize(
    ("ecn", "once", "least_same", "largest_difference"),
    [
        (False, True, 0.995, 0.001),
        (True, True, 0.995, 0.001),
        (False, False, 0.9, 0.03),
        (True, False, 0.9, 0.02),
    ],
    ids=["codel-once", "codel-ecn-once", "codel-loop", "codel-ecn-loop"],
)
def test_agreement_with_the_rfc_pseudocode(
    ecn: bool, once: bool, least_same: float, largest_difference: float
) -> None:
    """The model and RFC 8289 in floating point on the same 100,000 arrivals. With one
    decision per departure (`once`) they differ only by the control law's table (within
    1 %); with the RFC's loop, which drops several packets at one dequeue without
    spending the link's time on them, the queues drift apart, and the agreement is
    statistical (the table moves a drop to a neighbouring packet now and then, too).
    The bounds hold for this seeded workload with a margin."""
    params = CodelParams(target_us=5000, interval_us=100_000, ecn=ecn, limit_pkts=200)
    arrivals = phased_arrivals(seed=5, packets=100_000, idle_mean_us=200_000)
    model = run_model(params, arrivals)
    rfc = run_rfc(params, arrivals, once)
    same, rate_difference = agreement(model, rfc, {"drop", "overflow"})
    print(
        f"\nCoDel{' ECN' if ecn else ''} vs RFC 8289 in float"
        f" ({'one decision per departure' if once else 'with its drop loop'}):"
        f" {same:.4f} identical fates; drops {model.count('drop')} vs {rfc.count('drop')},"
        f" marks {model.count('mark')} vs {rfc.count('mark')},"
        f" overflows {model.count('overflow')} vs {rfc.count('overflow')};"
        f" drop rate difference {rate_difference:+.4f}"
    )
    assert same >= least_same
    assert abs(rate_difference) <= largest_difference
