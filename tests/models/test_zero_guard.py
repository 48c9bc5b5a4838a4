"""The models never count a departure below zero, as the programs do not: a controller
may reset an occupancy register while packets are queued (to restart an experiment),
and those packets still leave afterwards (tests/aqm/test_count_reset.py holds the
programs to the same)."""

from p4aqm.models.cbt import CbtParams, CbtQueue, CbtTables, TrafficClass
from p4aqm.models.droptail import DropTailQueue
from p4aqm.models.fred import FredParams, FredQueue, FredTables
from p4aqm.models.red import RedParams, RedQueue, RedTables

RED = RedParams(min_th_pkts=5, max_th_pkts=15, max_p=0.1, limit_pkts=40)


def test_red_departure_after_a_reset_stays_at_zero() -> None:
    queue = RedQueue(RedTables.from_params(RED))
    queue.arrive(0, False, lambda: 0)
    queue.occupancy = 0  # the reset, with the packet still queued
    queue.depart(500)
    assert (queue.occupancy, queue.idle_since_us) == (0, 500)
    # The next arrival finds an empty queue, as the program's does.
    queue.arrive(600, False, lambda: 0)
    assert queue.occupancy == 1


def test_cbt_departure_after_a_reset_stays_at_zero() -> None:
    params = CbtParams(tcp=RED, marked_th_pkts=4, unmarked_th_pkts=2)
    queue = CbtQueue(CbtTables.from_params(params))
    queue.arrive(0, TrafficClass.MARKED, False, lambda: 0)
    queue.occupancy = queue.classes[TrafficClass.MARKED].occupancy = 0
    queue.depart(500, TrafficClass.MARKED)
    assert queue.occupancy == queue.classes[TrafficClass.MARKED].occupancy == 0


def test_fred_departure_after_a_reset_stays_at_zero() -> None:
    tables = FredTables.from_params(FredParams(RED, flow_slots=8))
    queue = FredQueue(tables.red, fred=tables)
    queue.arrive_flow(0, 3, lambda: 0)
    assert (queue.occupancy, queue.flow_occupancy, queue.nactive) == (1, {3: 1}, 1)
    queue.occupancy, queue.flow_occupancy, queue.nactive = 0, {}, 0
    queue.depart_flow(500, 3)
    assert (queue.occupancy, queue.flow_occupancy, queue.nactive) == (0, {}, 0)


def test_droptail_departure_after_a_reset_stays_at_zero() -> None:
    queue = DropTailQueue(limit_pkts=2)
    queue.arrive()
    queue.occupancy = 0
    queue.depart()
    assert queue.occupancy == 0
    assert queue.arrive() and queue.arrive() and not queue.arrive()
