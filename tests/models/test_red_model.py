"""The RED reference model: its arithmetic, its regions and its long-run mark fraction."""

import math
import random

import pytest

from p4aqm.models.fixed_point import (
    avg_to_packets,
    packets_to_avg,
    probability,
)
from p4aqm.models.red import (
    Decision,
    RedParams,
    RedQueue,
    RedTables,
    expected_mark_fraction,
)

PARAMS = RedParams(min_th_pkts=30, max_th_pkts=90, max_p=0.1, w_q=1 / 512, limit_pkts=480)


def held_queue(params: RedParams, occupancy: int) -> RedQueue:
    """A queue whose occupancy the test holds at `occupancy`, its average already there."""
    queue = RedQueue(RedTables.from_params(params), occupancy=occupancy)
    queue.avg = packets_to_avg(occupancy)
    return queue


def arrive_held(queue: RedQueue, ect: bool, draw: random.Random) -> Decision:
    """An arrival whose admission is matched by a departure, so the occupancy stays put."""
    decision = queue.arrive(1, ect, lambda: draw.randrange(1 << 24))
    if decision in (Decision.ENQUEUE, Decision.MARK):
        queue.occupancy -= 1
    return decision


def test_average_converges_to_a_steady_queue() -> None:
    queue = RedQueue(RedTables.from_params(PARAMS), occupancy=40)
    for _ in range(20 * 512):
        queue.arrive(1, False, lambda: 0)
        queue.occupancy = 40
    assert avg_to_packets(queue.avg) == pytest.approx(40, abs=0.01)


def test_one_update_moves_the_average_by_w_q() -> None:
    queue = RedQueue(RedTables.from_params(PARAMS), occupancy=10)
    queue.arrive(1, False, lambda: 0)
    assert queue.avg == (10 << 16) >> 9


def test_no_marks_below_min_th() -> None:
    queue = held_queue(PARAMS, 29)
    draw = random.Random(1)
    decisions = {arrive_held(queue, False, draw) for _ in range(10_000)}
    assert decisions == {Decision.ENQUEUE}
    assert queue.count == -1


@pytest.mark.parametrize(
    ("ecn", "ect", "expected"),
    [
        (False, True, Decision.DROP_FORCED),
        (True, False, Decision.DROP_FORCED),
        (True, True, Decision.MARK),
    ],
)
def test_above_max_th(ecn: bool, ect: bool, expected: Decision) -> None:
    params = RedParams(min_th_pkts=30, max_th_pkts=90, max_p=0.1, ecn=ecn)
    queue = held_queue(params, 95)
    assert arrive_held(queue, ect, random.Random(1)) == expected


def test_gentle_extends_the_ramp_to_twice_max_th() -> None:
    params = RedParams(min_th_pkts=30, max_th_pkts=90, max_p=0.1, gentle=True, limit_pkts=480)
    queue = held_queue(params, 120)
    draw = random.Random(2)
    decisions = [arrive_held(queue, False, draw) for _ in range(2000)]
    assert Decision.DROP_FORCED not in decisions
    assert Decision.ENQUEUE in decisions and Decision.DROP_EARLY in decisions
    assert arrive_held(held_queue(params, 181), False, draw) == Decision.DROP_FORCED


def test_hard_limit_applies_after_red() -> None:
    params = RedParams(min_th_pkts=30, max_th_pkts=90, max_p=0.1, limit_pkts=20)
    queue = held_queue(params, 20)
    assert queue.arrive(1, False, lambda: 0) == Decision.DROP_OVERFLOW


@pytest.mark.parametrize("avg_pkts", [40.0, 60.0, 85.0])
@pytest.mark.parametrize("ecn", [False, True])
def test_mark_fraction_follows_the_design_curve(avg_pkts: float, ecn: bool) -> None:
    """At a fixed average the marked fraction is 1/E[gap] of the ramp's p_b, within 99 %."""
    params = RedParams(min_th_pkts=30, max_th_pkts=90, max_p=0.1, ecn=ecn, limit_pkts=480)
    queue = held_queue(params, round(avg_pkts))
    draw = random.Random(int(avg_pkts) + ecn)
    arrivals = 200_000
    marked = 0
    for _ in range(arrivals):
        queue.avg = packets_to_avg(avg_pkts)
        decision = arrive_held(queue, ecn, draw)
        marked += decision in (Decision.MARK, Decision.DROP_EARLY)
        assert decision != (Decision.DROP_EARLY if ecn else Decision.MARK)
    p_b = probability(0.1 * (avg_pkts - 30) / 60)
    expected = expected_mark_fraction(p_b)
    # Marks are spaced more evenly than Bernoulli trials, so the binomial bound is wide.
    half_width = 2.576 * math.sqrt(expected * (1 - expected) / arrivals)
    assert abs(marked / arrivals - expected) < half_width


def test_idle_decay() -> None:
    params = RedParams(min_th_pkts=5, max_th_pkts=15, max_p=0.1, idle_pkt_time_us=1000)
    queue = RedQueue(RedTables.from_params(params))
    queue.avg = packets_to_avg(10)
    queue.idle_since_us = 0
    # 512 packet times of idleness: (1 - 1/512)^512 ~ 1/e of the average survives,
    # then the arrival itself (q = 0) takes another w_q off.
    queue.arrive(512_000, False, lambda: 0)
    assert avg_to_packets(queue.avg) == pytest.approx(10 / math.e, rel=0.05)
    queue.occupancy, queue.idle_since_us = 0, 600_000
    queue.arrive(10**9, False, lambda: 0)
    assert queue.avg == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"min_th_pkts": 10, "max_th_pkts": 5}, "min_th < max_th"),
        ({"max_p": 0.0}, "max_p"),
        ({"w_q": 0.003}, "power of two"),
        ({"limit_pkts": 0}, "limit_pkts"),
    ],
)
def test_bad_parameters(kwargs: dict, message: str) -> None:
    values = {"min_th_pkts": 5, "max_th_pkts": 15, "max_p": 0.1, **kwargs}
    with pytest.raises(ValueError, match=message):
        RedParams(**values)
