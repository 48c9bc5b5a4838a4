"""RED (Floyd and Jacobson 1993) as p4src/include/red_core.p4 computes it, with gentle
and ECN options (p4src/red.p4 applies it per port).

Units and ranges are those of p4aqm/models/fixed_point.py. On each arrival, before the
packet joins the queue of its egress port:

  1. Idle decay. If the queue is empty, it has been idle for t = now - idle_since us,
     and the average decays as if m = t / s packets of transmission time s had left an
     empty queue: avg <- (1 - w_q)^m * avg. The data plane cannot raise to a power, so
     the controller installs a range table on t whose entries hold (1 - w_q)^m in units
     of 2^-16, m taken at the middle of each range; the model reads the same table.
  2. Average. avg <- avg + (occupancy - avg) * w_q with w_q = 2^-w_shift, avg in 2^-16
     packets and occupancy the packets already queued: a shift, taken on
     |occupancy - avg| so nothing goes negative.
  3. Decision. avg below min_th: enqueue, count <- -1. avg in [min_th, max_th) (or
     [min_th, 2 max_th) with gentle): the controller's range table on avg gives p_b in
     2^-24 (the linear ramp, then gentle's second ramp from max_p to 1); count <- count +
     1, and the packet is marked when count * p_b >= q_r, where q_r is uniform in
     [0, 2^24) and redrawn when count starts at 0 and after every mark. This is Linux's
     uniform spacing of marks (include/net/red.h): the same effect as p_a = p_b / (1 -
     count p_b) without a division. Above the ramp: forced mark, count <- -1.
  4. Marking. With ECN, a mark on an ECT packet sets CE; everything else drops. A
     forced mark is a drop unless ECN is on, as Linux does without its harddrop flag.
  5. Hard limit, last, as in ns-2 and Linux: a packet still to be enqueued (or marked)
     when the occupancy is at limit_pkts is dropped (overflow).

A departure takes the packet off the occupancy, never below zero (a count the control
plane reset while packets were queued), and the departure that leaves it at zero records
idle_since.
"""

import enum
import math
from collections.abc import Callable
from dataclasses import dataclass

from p4aqm.models.fixed_point import (
    AVG_FRAC_BITS,
    DECAY_BITS,
    DECAY_ONE,
    MAX_LIMIT_PKTS,
    MAX_TH_GENTLE_PKTS,
    MAX_TH_PKTS,
    MAX_TIME_US,
    PROB_ONE,
    Q_R_MAX,
    check_at_most,
    packets_to_avg,
    probability,
    weight_shift,
)

# Table sizes the controller installs: ramp bins per ramp, idle-time bins.
RAMP_BINS = 256
IDLE_BINS = 256


class Decision(enum.Enum):
    ENQUEUE = "enqueue"
    MARK = "mark"  # enqueued with CE set
    DROP_EARLY = "drop_early"  # a probabilistic decision on the ramp
    DROP_FORCED = "drop_forced"  # avg above the ramp
    DROP_OVERFLOW = "drop_overflow"  # occupancy at the hard limit


@dataclass(frozen=True)
class RedParams:
    """RED in a researcher's units."""

    min_th_pkts: float
    max_th_pkts: float
    max_p: float
    w_q: float = 1 / 512
    limit_pkts: int = 1000
    gentle: bool = False
    ecn: bool = False
    # Typical transmission time of a packet, for the idle decay (1500 B at 10 Mbit/s).
    idle_pkt_time_us: float = 1200.0

    def __post_init__(self) -> None:
        if not 0 <= self.min_th_pkts < self.max_th_pkts:
            raise ValueError("need 0 <= min_th < max_th")
        if not 0.0 < self.max_p <= 1.0:
            raise ValueError("max_p must be in (0, 1]")
        if self.limit_pkts < 1:
            raise ValueError("limit_pkts must be at least 1 packet")
        if self.idle_pkt_time_us <= 0:
            raise ValueError("idle_pkt_time_us must be positive")
        check_red_ranges(self.limit_pkts, self.max_th_pkts, self.gentle)
        weight_shift(self.w_q)


def check_red_ranges(limit_pkts: int, max_th_pkts: float, gentle: bool) -> None:
    """The bounds of fixed_point.py for RED's own fields."""
    check_at_most(
        "limit_pkts", limit_pkts, MAX_LIMIT_PKTS, "occupancy << 16 must fit the 32-bit average"
    )
    if gentle:
        why = "with gentle, 2 max_th * 2^16 must fit 32 bits"
        check_at_most("max_th", max_th_pkts, MAX_TH_GENTLE_PKTS, why)
    else:
        check_at_most("max_th", max_th_pkts, MAX_TH_PKTS, "max_th * 2^16 must fit 32 bits")


@dataclass(frozen=True)
class RangeEntry:
    """One entry of a control-plane range table: [low, high] inclusive -> value."""

    low: int
    high: int
    value: int


@dataclass(frozen=True)
class RedTables:
    """What the controller installs: integers only, as the data plane sees them. The
    thresholds' `_q16` says their unit: 2^-16 packets (AVG_FRAC_BITS), where the config's
    min_th and max_th are packets."""

    w_shift: int
    min_th_q16: int
    max_th_q16: int
    ramp_end_q16: int  # max_th, or 2 max_th with gentle
    limit_pkts: int
    ecn: bool
    p_b_table: tuple[RangeEntry, ...]
    decay_table: tuple[RangeEntry, ...]

    @classmethod
    def from_params(cls, params: RedParams) -> "RedTables":
        min_th = packets_to_avg(params.min_th_pkts)
        max_th = packets_to_avg(params.max_th_pkts)
        bins = ramp_bins(min_th, max_th, 0.0, params.max_p)
        ramp_end = max_th
        if params.gentle:
            ramp_end = 2 * max_th
            bins += ramp_bins(max_th, ramp_end, params.max_p, 1.0)
        return cls(
            w_shift=weight_shift(params.w_q),
            min_th_q16=min_th,
            max_th_q16=max_th,
            ramp_end_q16=ramp_end,
            limit_pkts=params.limit_pkts,
            ecn=params.ecn,
            p_b_table=tuple(bins),
            decay_table=_decay(params.w_q, params.idle_pkt_time_us),
        )


def ramp_bins(low: int, high: int, p_low: float, p_high: float) -> list[RangeEntry]:
    """Linear p from p_low at `low` to p_high at `high`, sampled at each bin's middle."""
    bins = min(RAMP_BINS, high - low)
    entries = []
    for i in range(bins):
        start = low + (high - low) * i // bins
        end = low + (high - low) * (i + 1) // bins - 1
        middle = (start + end + 1) / 2
        p = p_low + (p_high - p_low) * (middle - low) / (high - low)
        entries.append(RangeEntry(start, end, probability(min(p, 1.0))))
    return entries


def decay_horizon_us(w_q: float, pkt_time_us: float) -> int:
    """The idle time past which (1 - w_q)^m is below 2^-16: the average is gone."""
    horizon_pkts = DECAY_BITS * math.log(2) / -math.log1p(-w_q)
    # Idle times are bit<48> us; past that (8.9 years) the table ends, and the average
    # is taken as gone.
    return min(max(1, math.ceil(horizon_pkts * pkt_time_us)), MAX_TIME_US)


def _decay(w_q: float, pkt_time_us: float) -> tuple[RangeEntry, ...]:
    """(1 - w_q)^m for idle times in geometric bins; beyond the last bin the avg is 0."""
    horizon_us = decay_horizon_us(w_q, pkt_time_us)
    edges = sorted({0, *(round(horizon_us ** (i / IDLE_BINS)) for i in range(1, IDLE_BINS + 1))})
    entries = []
    for start, stop in zip(edges, edges[1:], strict=False):
        middle_pkts = (start + stop) / 2 / pkt_time_us
        factor = round((1 - w_q) ** middle_pkts * DECAY_ONE)
        entries.append(RangeEntry(start, stop - 1, factor))
    return tuple(entries)


def lookup(table: tuple[RangeEntry, ...], key: int) -> int | None:
    for entry in table:
        if entry.low <= key <= entry.high:
            return entry.value
    return None


@dataclass
class RedQueue:
    """The per-port state RED keeps in registers, and the decisions it makes."""

    config: RedTables
    avg: int = 0
    count: int = -1
    q_r: int = 0
    occupancy: int = 0
    idle_since_us: int = 0

    def arrive(self, now_us: int, ect: bool, draw: Callable[[], int]) -> Decision:
        """One arrival at time now_us; `draw()` returns a random value in [0, 2^24), called
        exactly where the program keeps a fresh random() value as its new q_r."""
        self.update_avg(now_us)
        decision = self.decide(ect, draw)
        if decision in (Decision.ENQUEUE, Decision.MARK):
            # As in ns-2 and Linux, the hard limit applies after RED has decided.
            if self.occupancy >= self.config.limit_pkts:
                return Decision.DROP_OVERFLOW
            self.occupancy += 1
        return decision

    def depart(self, now_us: int) -> None:
        # Never below zero, as the program: the control plane may have reset the count.
        self.occupancy = max(self.occupancy - 1, 0)
        if self.occupancy == 0:
            self.idle_since_us = now_us

    def update_avg(self, now_us: int) -> None:
        cfg = self.config
        if self.occupancy == 0:
            factor = lookup(cfg.decay_table, now_us - self.idle_since_us)
            self.avg = (self.avg * factor) >> DECAY_BITS if factor is not None else 0
        target = self.occupancy << AVG_FRAC_BITS
        if target >= self.avg:
            self.avg += (target - self.avg) >> cfg.w_shift
        else:
            self.avg -= (self.avg - target) >> cfg.w_shift

    def decide(self, ect: bool, draw: Callable[[], int]) -> Decision:
        cfg = self.config
        if self.avg < cfg.min_th_q16:
            self.count = -1
            return Decision.ENQUEUE
        if self.avg >= cfg.ramp_end_q16:
            self.count = -1
            return self._mark(ect, Decision.DROP_FORCED)
        self.count += 1
        if self.count == 0:
            self.q_r = draw()
            return Decision.ENQUEUE
        p_b = lookup(cfg.p_b_table, self.avg)
        assert p_b is not None, "the ramp table covers [min_th, ramp_end)"
        if self.count * p_b >= self.q_r:
            self.count = 0
            self.q_r = draw()
            return self._mark(ect, Decision.DROP_EARLY)
        return Decision.ENQUEUE

    def _mark(self, ect: bool, drop: Decision) -> Decision:
        return Decision.MARK if self.config.ecn and ect else drop


def expected_mark_fraction(p_b: int) -> float:
    """Long-run fraction of arrivals marked at a fixed average whose ramp gives p_b.

    After a mark, count restarts at 0 and a new q_r is drawn; the next mark is the first
    count n >= 1 with n * p_b >= q_r. With q_r uniform over the integers [0, 2^24), the
    gap X has P(X > n) = P(q_r > n p_b), and the fraction is 1 / E[X]: near
    2 p_b / (1 + p_b) rather than p_b, because marks are spread evenly, not at random.
    """
    if p_b <= 0:
        return 0.0
    top = Q_R_MAX
    # E[X] = 1 + sum_{n=1..N} (top - n p_b) / 2^24 over the N counts with n p_b < top.
    n_max = -(-top // p_b) - 1
    tail = n_max * top - p_b * n_max * (n_max + 1) // 2
    return 1.0 / (1.0 + tail / PROB_ONE)


__all__ = [
    "Decision",
    "RangeEntry",
    "RedParams",
    "RedQueue",
    "RedTables",
    "check_red_ranges",
    "expected_mark_fraction",
]
