"""CoDel (RFC 8289) as p4src/codel.p4 computes it, per egress port, with an ECN option.

Times are integers in microseconds, as v1model gives them: the sojourn time of a
dequeued packet (deq_timedelta, bit<32>) and the clock (egress_global_timestamp,
bit<48>). On each departure of an admitted packet, in egress:

  1. above = sojourn >= target and more than one packet is left in the queue (RFC
     8289's bytes() <= MAXPACKET in packets). first_above_time becomes 0 unless above,
     and now + interval when the queue first turns above; ok_to_drop = above and
     first_above_time (before this departure) != 0 and now >= it.
  2. In the dropping state: ok_to_drop false leaves it; otherwise, once now >= drop_next,
     the packet is dropped, count += 1 (saturating at 2^32 - 1) and drop_next <-
     drop_next + law(count). Out of it: ok_to_drop drops the packet and enters it, count
     <- count - lastcount if that is above 1 and now - drop_next < 16 interval (a
     drop_next in the future counts as recent), else 1; lastcount <- count; drop_next <-
     now + law(count).
  3. A drop of an ECT packet with ECN on is a CE mark instead.

One decision per departure: v1model cannot dequeue the next packet from egress, so the
RFC's loop of drops in one dequeue becomes one drop per departure that is due.

The control law law(count) = interval / sqrt(count) us is a range table on count that
the controller installs (law_table): one entry per count up to 25, then bins [lo, hi]
with hi < CONTROL_LAW_BIN_RATIO lo (about 500 entries up to count 2^32 - 1), each holding
interval / sqrt(sqrt(lo hi)), its geometric middle, rounded to a microsecond. Over a bin
the exact law moves by a factor (hi / lo)^(1/2), so the middle's value is within
(hi / lo)^(1/4) - 1 < 1 % of it: |law(count) - interval / sqrt(count)| <= 1 % of
interval / sqrt(count) + 0.5 us for every count (tests/models/test_codel_model.py checks
both ends of every bin). The ingress hard limit is droptail's:
arrivals that find limit_pkts packets admitted are dropped.
"""

import enum
import math
from dataclasses import dataclass

from p4aqm.models.fixed_point import REGISTER_MAX, check_at_most
from p4aqm.models.red import RangeEntry, lookup

CONTROL_LAW_BIN_RATIO = 1.04
COUNT_MAX = REGISTER_MAX  # count is bit<32> and saturates
RESUME_INTERVALS = 16  # count resumes if the last drop_next is less than this many ago
# target and interval are bit<32> us in the program.
MAX_PARAM_US = REGISTER_MAX


class CodelDecision(enum.Enum):
    PASS = "pass"
    MARK = "mark"  # left with CE set
    DROP = "drop"  # dropped at dequeue


@dataclass(frozen=True)
class CodelParams:
    """CoDel in a researcher's units (RFC 8289's defaults)."""

    target_us: int = 5000
    interval_us: int = 100_000
    ecn: bool = False
    limit_pkts: int = 1000

    def __post_init__(self) -> None:
        check_codel_ranges(self.target_us, self.interval_us, self.limit_pkts)


def check_codel_ranges(target_us: int, interval_us: int, limit_pkts: int) -> None:
    """Refuse values the program's registers cannot hold, naming the field."""
    if target_us < 1:
        raise ValueError(f"target_us = {target_us} must be at least 1 us")
    if interval_us < 1:
        raise ValueError(f"interval_us = {interval_us} must be at least 1 us")
    if limit_pkts < 1:
        raise ValueError(f"limit_pkts = {limit_pkts} must be at least 1 packet")
    check_at_most("target_us", target_us, MAX_PARAM_US, "target is bit<32> us")
    check_at_most("interval_us", interval_us, MAX_PARAM_US, "interval is bit<32> us")
    check_at_most("limit_pkts", limit_pkts, REGISTER_MAX, "limit_pkts is bit<32>")


def count_edges() -> list[int]:
    """The first count of every control-law bin, and COUNT_MAX + 1 to close the last."""
    edges = [1]
    while edges[-1] <= COUNT_MAX:
        low = edges[-1]
        edges.append(max(low + 1, math.floor(low * CONTROL_LAW_BIN_RATIO)))
    edges[-1] = COUNT_MAX + 1
    return edges


def law_table(interval_us: int) -> tuple[RangeEntry, ...]:
    """interval / sqrt(count) in us over count in [1, 2^32 - 1], in range bins, each the
    value at its geometric middle sqrt(low * high)."""
    edges = count_edges()
    return tuple(
        RangeEntry(low, stop - 1, round(interval_us / math.sqrt(math.sqrt(low * (stop - 1)))))
        for low, stop in zip(edges, edges[1:], strict=False)
    )


@dataclass(frozen=True)
class CodelTables:
    """What the controller installs: integers only, as the data plane sees them."""

    target_us: int
    interval_us: int
    limit_pkts: int
    ecn: bool
    law_table: tuple[RangeEntry, ...]

    @classmethod
    def from_params(cls, params: CodelParams) -> "CodelTables":
        return cls(
            target_us=params.target_us,
            interval_us=params.interval_us,
            limit_pkts=params.limit_pkts,
            ecn=params.ecn,
            law_table=law_table(params.interval_us),
        )


@dataclass
class CodelQueue:
    """The per-port state CoDel keeps in registers, and its decisions."""

    config: CodelTables
    first_above_time_us: int = 0
    dropping: bool = False
    count: int = 0
    lastcount: int = 0
    drop_next_us: int = 0
    sojourn_us: int = 0
    occupancy: int = 0

    def arrive(self) -> bool:
        """The ingress limit: True if the arrival is admitted."""
        if self.occupancy >= self.config.limit_pkts:
            return False
        self.occupancy += 1
        return True

    def depart(self, now_us: int, sojourn_us: int, left_pkts: int, ect: bool) -> CodelDecision:
        """An admitted packet leaves the queue at now_us after sojourn_us, left_pkts
        behind it (deq_qdepth)."""
        self.occupancy = max(self.occupancy - 1, 0)
        ok_to_drop = self._dodequeue(now_us, sojourn_us, left_pkts)
        if not self._decide(now_us, ok_to_drop):
            return CodelDecision.PASS
        return CodelDecision.MARK if self.config.ecn and ect else CodelDecision.DROP

    def _dodequeue(self, now_us: int, sojourn_us: int, left_pkts: int) -> bool:
        cfg = self.config
        self.sojourn_us = sojourn_us
        above = sojourn_us >= cfg.target_us and left_pkts > 1
        first = self.first_above_time_us
        ok_to_drop = above and first != 0 and now_us >= first
        if not above:
            self.first_above_time_us = 0
        elif first == 0:
            self.first_above_time_us = now_us + cfg.interval_us
        return ok_to_drop

    def _decide(self, now_us: int, ok_to_drop: bool) -> bool:
        """Updates the dropping state; True if this packet is dropped (or marked)."""
        enter = not self.dropping and ok_to_drop
        again = self.dropping and ok_to_drop and now_us >= self.drop_next_us
        self.dropping = ok_to_drop
        if enter:
            delta = self.count - self.lastcount
            since = now_us - self.drop_next_us
            recent = since < RESUME_INTERVALS * self.config.interval_us
            self.count = delta if delta > 1 and recent else 1
            self.lastcount = self.count
            self._schedule(now_us)
        elif again:
            self.count = min(self.count + 1, COUNT_MAX)
            self._schedule(self.drop_next_us)
        return enter or again

    def _schedule(self, base_us: int) -> None:
        law = lookup(self.config.law_table, self.count)
        self.drop_next_us = base_us + (law if law is not None else 0)


__all__ = [
    "CONTROL_LAW_BIN_RATIO",
    "CodelDecision",
    "CodelParams",
    "CodelQueue",
    "CodelTables",
    "check_codel_ranges",
    "law_table",
]
