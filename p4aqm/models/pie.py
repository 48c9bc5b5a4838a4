"""PIE (RFC 8033) as p4src/pie.p4 computes it, per egress port, with an ECN option.

Units (the program's comment block has the same table): drop_prob and the random u are
integers in 2^-32 (PROB_MAX = 2^32 - 1 stands for 1); alpha and beta are integers in
2^-40 of probability per microsecond of delay (a gain of g per second is
round(g 2^40 / 10^6)); every delay and time is an integer in microseconds.

On each arrival at a PIE port, in ingress:

  1. Update. The port's first arrival sets burst_allowance = max_burst and next_update =
     now + t_update. Later, the first arrival at or after next_update runs RFC 8033's
     calculate_drop_prob on qdelay (the sojourn of the last departure, 0 if it left the
     queue empty) and qdelay_old:
       p = (alpha qdelay + beta qdelay) - (alpha target + beta qdelay_old), shifted right
       by GAIN_FRAC_BITS plus the RFC's scaling (11, 9, 7, 5, 3, 1 below drop_prob 1e-6,
       1e-5, 1e-4, 1e-3, 1e-2, 1e-1, else 0), on the absolute difference;
       a rise is capped at 2 % once drop_prob >= 10 %; drop_prob += p within [0, PROB_MAX];
       with qdelay = qdelay_old = 0, drop_prob <- drop_prob * 64225 >> 16 (0.98);
       burst_allowance -= t_update down to 0, and = max_burst if drop_prob is now 0 and
       qdelay and qdelay_old are below target / 2 (target >> 1); qdelay_old <- qdelay;
       next_update <- now + t_update.
  2. drop_early. No drop while burst_allowance > 0, or while qdelay_old < target / 2 and
     drop_prob < 20 %, or with at most 2 packets queued; otherwise drop when u < drop_prob.
  3. With ECN, an early drop of an ECT packet is a CE mark while drop_prob <= 10 %.
  4. The hard limit, last: a packet to be enqueued or marked that finds limit_pkts
     packets admitted is dropped (overflow).

Updates happen at arrivals, so an idle port skips the ones RFC 8033's timer would run.
"""

import enum
from collections.abc import Callable
from dataclasses import dataclass

from p4aqm.models.fixed_point import REGISTER_MAX, check_at_most

PROB_BITS = 32
PROB_MAX = (1 << PROB_BITS) - 1
GAIN_FRAC_BITS = 8
US_PER_S = 1_000_000
MAX_GAIN_PER_S = 16.0  # alpha, beta: products with a 32-bit delay stay below 2^57
MAX_PARAM_US = REGISTER_MAX  # target, t_update, max_burst are bit<32> us
DECAY = 64225  # 0.98 in 2^-16
DECAY_BITS = 16
SAFE_QUEUE_PKTS = 2


def prob(p: float) -> int:
    """A probability in 2^-32, as the program's constants are written."""
    return min(round(p * (1 << PROB_BITS)), PROB_MAX)


# RFC 8033's scaling of the adjustment while drop_prob is small: (bound, shift).
SCALING = tuple(
    (prob(bound), shift)
    for bound, shift in ((1e-6, 11), (1e-5, 9), (1e-4, 7), (1e-3, 5), (1e-2, 3), (1e-1, 1))
)
PROB_TENTH = prob(0.1)  # the 2 % cap applies from here; mark_ecnth
PROB_FIFTH = prob(0.2)
STEP_CAP = prob(0.02)


class PieDecision(enum.Enum):
    ENQUEUE = "enqueue"
    MARK = "mark"  # enqueued with CE set
    DROP_EARLY = "drop_early"
    DROP_OVERFLOW = "drop_overflow"


@dataclass(frozen=True)
class PieParams:
    """PIE in a researcher's units (RFC 8033's defaults)."""

    target_us: int = 15_000
    t_update_us: int = 15_000
    alpha: float = 0.125  # per second
    beta: float = 1.25
    max_burst_us: int = 150_000
    ecn: bool = False
    limit_pkts: int = 1000

    def __post_init__(self) -> None:
        check_pie_ranges(self)


def check_pie_ranges(params: PieParams) -> None:
    """Refuse values the program's registers cannot hold, naming the field."""
    for field in ("target_us", "t_update_us", "max_burst_us"):
        value = getattr(params, field)
        if value < (0 if field == "max_burst_us" else 1):
            raise ValueError(f"{field} = {value} is too small")
        check_at_most(field, value, MAX_PARAM_US, f"{field} is bit<32> us")
    for field in ("alpha", "beta"):
        value = getattr(params, field)
        if value < 0:
            raise ValueError(f"{field} = {value:g} must not be negative")
        check_at_most(field, value, MAX_GAIN_PER_S, "alpha and beta times a delay fit 64 bits")
    if params.limit_pkts < 1:
        raise ValueError(f"limit_pkts = {params.limit_pkts} must be at least 1 packet")
    check_at_most("limit_pkts", params.limit_pkts, REGISTER_MAX, "limit_pkts is bit<32>")


def gain(per_s: float) -> int:
    """A gain per second in 2^-40 of probability per microsecond."""
    return round(per_s * (1 << (PROB_BITS + GAIN_FRAC_BITS)) / US_PER_S)


@dataclass(frozen=True)
class PieTables:
    """What the controller installs: integers only, as the data plane sees them."""

    target_us: int
    t_update_us: int
    alpha: int
    beta: int
    max_burst_us: int
    limit_pkts: int
    ecn: bool

    @classmethod
    def from_params(cls, params: PieParams) -> "PieTables":
        return cls(
            target_us=params.target_us,
            t_update_us=params.t_update_us,
            alpha=gain(params.alpha),
            beta=gain(params.beta),
            max_burst_us=params.max_burst_us,
            limit_pkts=params.limit_pkts,
            ecn=params.ecn,
        )


def scaling_shift(drop_prob: int) -> int:
    for bound, shift in SCALING:
        if drop_prob < bound:
            return shift
    return 0


@dataclass
class PieQueue:
    """The per-port state PIE keeps in registers, and its decisions."""

    config: PieTables
    drop_prob: int = 0
    qdelay_us: int = 0
    qdelay_old_us: int = 0
    burst_allowance_us: int = 0
    next_update_us: int = 0
    occupancy: int = 0

    def arrive(self, now_us: int, ect: bool, draw: Callable[[], int]) -> PieDecision:
        """One arrival; draw() gives the arrival's random u in [0, 2^32)."""
        self.update(now_us)
        queued = self.occupancy
        u = draw()
        decision = PieDecision.ENQUEUE
        if self._drop_early(u, queued):
            mark = self.config.ecn and ect and self.drop_prob <= PROB_TENTH
            decision = PieDecision.MARK if mark else PieDecision.DROP_EARLY
        if decision is not PieDecision.DROP_EARLY:
            if self.occupancy >= self.config.limit_pkts:
                return PieDecision.DROP_OVERFLOW
            self.occupancy += 1
        return decision

    def depart(self, sojourn_us: int, left_pkts: int) -> None:
        """A packet leaves after sojourn_us with left_pkts behind it."""
        self.occupancy = max(self.occupancy - 1, 0)
        self.qdelay_us = 0 if left_pkts == 0 else sojourn_us

    def update(self, now_us: int) -> None:
        cfg = self.config
        if self.next_update_us == 0:
            self.burst_allowance_us = cfg.max_burst_us
            self.next_update_us = now_us + cfg.t_update_us
            return
        if now_us < self.next_update_us:
            return
        self.drop_prob = self._stepped()
        half = cfg.target_us >> 1
        self.burst_allowance_us = max(self.burst_allowance_us - cfg.t_update_us, 0)
        if self.drop_prob == 0 and self.qdelay_us < half and self.qdelay_old_us < half:
            self.burst_allowance_us = cfg.max_burst_us
        self.qdelay_old_us = self.qdelay_us
        self.next_update_us = now_us + cfg.t_update_us

    def _stepped(self) -> int:
        cfg = self.config
        shift = GAIN_FRAC_BITS + scaling_shift(self.drop_prob)
        up = (cfg.alpha + cfg.beta) * self.qdelay_us
        down = cfg.alpha * cfg.target_us + cfg.beta * self.qdelay_old_us
        rise = (up - down) >> shift if up >= down else 0
        fall = (down - up) >> shift if up < down else 0
        if self.drop_prob >= PROB_TENTH:
            rise = min(rise, STEP_CAP)
        stepped = max(min(self.drop_prob + rise, PROB_MAX) - fall, 0)
        if self.qdelay_us == 0 and self.qdelay_old_us == 0:
            stepped = (stepped * DECAY) >> DECAY_BITS
        return stepped

    def _drop_early(self, u: int, queued: int) -> bool:
        cfg = self.config
        if self.burst_allowance_us > 0:
            return False
        calm = self.qdelay_old_us < cfg.target_us >> 1 and self.drop_prob < PROB_FIFTH
        if calm or queued <= SAFE_QUEUE_PKTS:
            return False
        return u < self.drop_prob


__all__ = [
    "PROB_BITS",
    "PROB_MAX",
    "PieDecision",
    "PieParams",
    "PieQueue",
    "PieTables",
    "check_pie_ranges",
    "gain",
    "prob",
]
