"""CBT, class-based thresholds (Parris, Jeffay, Smith 1999), as p4src/cbt.p4 computes it.

Units and ranges are those of p4aqm/models/fixed_point.py.

One FIFO per port, shared by three classes that a controller-installed table sorts
packets into: TCP, marked non-TCP (well-behaved, such as multimedia that marks itself
with a DSCP) and unmarked non-TCP (everything else). State is kept per class, never per
flow: each class has its own occupancy and its own weighted average of it.

On each arrival, before the packet joins the queue of its egress port:

  1. Class average. The arriving packet's class updates its average exactly as RED
     updates the port's (p4aqm/models/red.py, whose code this model calls): idle decay
     when the class has no packets queued, from the time its last packet left, then
     avg <- avg + (occupancy_class - avg) * 2^-w_shift in 2^-16 packets. Every class uses the port's
     w_q and idle table, so one set of control-plane tables serves all three.
  2. Decision.
       TCP: RED on the TCP class's average (count, q_r, the p_b ramp, gentle and ECN
       exactly as in RED), so TCP keeps RED's early, spread-out feedback.
       Marked and unmarked non-TCP: dropped when the class average is above the class
       threshold (avg > threshold, both in 2^-16 packets). This is the isolation CBT is
       for: an unresponsive class can hold about its threshold of the shared buffer,
       and no more, however fast it sends.
  3. Hard limit. A packet that its class would admit is still dropped (overflow) when
     the whole port queue holds limit_pkts packets: the buffer is one FIFO.

A class's average moves only on its own arrivals (as RED's moves only on arrivals), and
the idle decay catches up on the time in between. Departures take the packet off its
class and off the port; the departure that empties a class records when it did.

Two choices the slides leave open: RED for TCP runs on the TCP class's own average, not
the whole queue's, so a UDP blast held at its threshold does not push TCP up RED's
ramp; and threshold drops are drops, never ECN marks, since unresponsive senders would
not slow down for a mark.
"""

import enum
from collections.abc import Callable
from dataclasses import dataclass, field

from p4aqm.models.fixed_point import MAX_TH_PKTS, check_at_most, packets_to_avg
from p4aqm.models.red import Decision, RedParams, RedQueue, RedTables


class TrafficClass(enum.IntEnum):
    """The class numbers of the P4 program's class table (cbt_set_class's argument)."""

    TCP = 0
    MARKED = 1
    UNMARKED = 2


class CbtDecision(enum.Enum):
    ENQUEUE = "enqueue"
    MARK = "mark"  # a TCP packet enqueued with CE set
    DROP_EARLY = "drop_early"  # RED's probabilistic drop, TCP class
    DROP_FORCED = "drop_forced"  # RED's average above the ramp, TCP class
    DROP_THRESHOLD = "drop_threshold"  # a non-TCP class average above its threshold
    DROP_OVERFLOW = "drop_overflow"  # the port's FIFO holds limit_pkts packets


_FROM_RED = {
    Decision.ENQUEUE: CbtDecision.ENQUEUE,
    Decision.MARK: CbtDecision.MARK,
    Decision.DROP_EARLY: CbtDecision.DROP_EARLY,
    Decision.DROP_FORCED: CbtDecision.DROP_FORCED,
}


@dataclass(frozen=True)
class CbtParams:
    """CBT in a researcher's units. The TCP class's RED parameters also give the port's
    w_q, idle clock and hard limit (limit_pkts), which every class shares."""

    tcp: RedParams
    marked_th_pkts: float
    unmarked_th_pkts: float

    def __post_init__(self) -> None:
        if self.marked_th_pkts < 0 or self.unmarked_th_pkts < 0:
            raise ValueError("class thresholds must be >= 0 packets")
        why = "a threshold * 2^16 must fit 32 bits"
        check_at_most("marked_th", self.marked_th_pkts, MAX_TH_PKTS, why)
        check_at_most("unmarked_th", self.unmarked_th_pkts, MAX_TH_PKTS, why)


@dataclass(frozen=True)
class CbtTables:
    """What the controller installs: RED's integers plus a threshold per non-TCP class."""

    red: RedTables
    marked_th: int  # in 2^-16 packets
    unmarked_th: int

    @classmethod
    def from_params(cls, params: CbtParams) -> "CbtTables":
        return cls(
            red=RedTables.from_params(params.tcp),
            marked_th=packets_to_avg(params.marked_th_pkts),
            unmarked_th=packets_to_avg(params.unmarked_th_pkts),
        )

    def threshold(self, traffic_class: TrafficClass) -> int:
        return self.marked_th if traffic_class is TrafficClass.MARKED else self.unmarked_th


@dataclass
class CbtQueue:
    """A port's CBT state: RED's per-queue state for each class (only the TCP class uses
    count and q_r), and the port's total occupancy for the hard limit."""

    config: CbtTables
    classes: dict[TrafficClass, RedQueue] = field(init=False)
    occupancy: int = 0

    def __post_init__(self) -> None:
        self.classes = {c: RedQueue(self.config.red) for c in TrafficClass}

    def arrive(
        self, now_us: int, traffic_class: TrafficClass, ect: bool, draw: Callable[[], int]
    ) -> CbtDecision:
        """One arrival at now_us; `draw()` is the data plane's next random value, called
        only for the TCP class and exactly when RED calls it."""
        queue = self.classes[traffic_class]
        # RED's own update and decision, so CBT's TCP class cannot drift from RED.
        queue.update_avg(now_us)
        if traffic_class is TrafficClass.TCP:
            decision = _FROM_RED[queue.decide(ect, draw)]
        elif queue.avg > self.config.threshold(traffic_class):
            decision = CbtDecision.DROP_THRESHOLD
        else:
            decision = CbtDecision.ENQUEUE
        if decision in (CbtDecision.ENQUEUE, CbtDecision.MARK):
            if self.occupancy >= self.config.red.limit_pkts:
                return CbtDecision.DROP_OVERFLOW
            self.occupancy += 1
            queue.occupancy += 1
        return decision

    def depart(self, now_us: int, traffic_class: TrafficClass) -> None:
        # Never below zero, as the program (see RedQueue.depart).
        self.occupancy = max(self.occupancy - 1, 0)
        self.classes[traffic_class].depart(now_us)


__all__ = ["CbtDecision", "CbtParams", "CbtQueue", "CbtTables", "TrafficClass"]
