"""Adaptive RED (Floyd, Gummadi and Shenker 2001) as p4src/ared.p4 computes it.

Units and ranges are those of p4aqm/models/fixed_point.py.

Adaptive RED is gentle RED (p4aqm/models/red.py: the same idle decay, average, uniform
spacing of marks, ECN and hard limit) whose max_p is a per-port register that the data
plane adapts itself, driven by the packets' timestamps:

  1. Start. The register next_adapt holds the time of the next adaptation; 0 means the
     port has not started. The first arrival loads max_p from the controller's initial
     value and sets next_adapt = now + interval.
  2. Adaptation. The first arrival at or after next_adapt, once its average is updated
     (so an idle decay is seen before it counts), compares the average with the target
     band [min_th + 0.4 (max_th - min_th), min_th + 0.6 (max_th - min_th)]:
       avg > band_high and max_p <= 0.5:   max_p += min(0.01, max_p / 4)  (additive)
       avg < band_low  and max_p >= 0.01:  max_p *= 0.9                   (multiplicative)
     and sets next_adapt = now + interval. With no arrival the port does not adapt: an
     idle port has nothing to decide, and the first arrival after it adapts once. So
     adaptations are at least an interval apart, counted from the adapting arrival (the
     paper's timer ticks on a fixed grid instead).
  3. Decision, with the new max_p, as in RED with gentle on.

A retune of the port's table entries takes effect on the next arrival, except for the
initial max_p: the register keeps the adapted value (writing 0 to next_adapt restarts
the port from the initial max_p).

Representation, because the data plane never divides:
  - max_p in units of 2^-24 (PROB_ONE), as RED's probabilities; 0.5, 0.01 and the
    increment cap 0.01 are integers from the controller; max_p / 4 is a shift.
  - *0.9 is a multiply-shift: max_p <- (max_p * beta) >> 16 with beta = round(0.9 * 2^16),
    which truncates (0.9 is not a power of two).
  - The ramp cannot be a table of p_b, since max_p changes. The controller installs a
    range table on avg whose entries hold two ramp fractions a and b in 2^-24, and
    p_b = (max_p * a + (2^24 - max_p) * b) >> 24: on the linear ramp [min_th, max_th)
    a = (avg - min_th) / (max_th - min_th) and b = 0 (p_b = max_p a); on gentle's ramp
    [max_th, 2 max_th) a = 1 and b = (avg - max_th) / max_th (p_b from max_p up to 1).
    The fractions are RED's own bins (red.ramp_bins), sampled at each bin's middle.

The model reuses RedQueue for the average, the idle decay and the decision: after each
adaptation it gives RedQueue the p_b table that the formula yields for the new max_p,
bin by bin, which is what the data plane computes for whichever bin the average is in.
"""

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from p4aqm.models.fixed_point import MAX_TIME_US, PROB_BITS, PROB_ONE, check_at_most, probability
from p4aqm.models.red import Decision, RangeEntry, RedParams, RedQueue, RedTables, ramp_bins

# *0.9 is (max_p * beta) >> BETA_BITS.
BETA_BITS = 16


class AutomaticSettings(NamedTuple):
    min_th_pkts: float
    max_th_pkts: float
    w_q: float


def automatic_settings(
    link_rate_bps: float, target_delay_s: float = 0.005, packet_bytes: int = 1500
) -> AutomaticSettings:
    """Adaptive RED's own parameters (Floyd, Gummadi and Shenker 2001, section 5), from
    the link's capacity C in packets of `packet_bytes` per second:
    min_th = max(5, target_delay * C / 2), max_th = 3 min_th, w_q = 1 - exp(-1/C),
    rounded to the nearest power of two (in log2) since the data plane's w_q is a shift."""
    if link_rate_bps <= 0 or target_delay_s <= 0 or packet_bytes <= 0:
        raise ValueError(
            f"link_rate_bps {link_rate_bps}, target_delay_s {target_delay_s},"
            f" packet_bytes {packet_bytes}: each must be positive"
        )
    capacity_pps = link_rate_bps / (8 * packet_bytes)
    min_th = max(5.0, target_delay_s * capacity_pps / 2)
    w_q = -math.expm1(-1 / capacity_pps)
    return AutomaticSettings(min_th, 3 * min_th, 2.0 ** -round(-math.log2(w_q)))


@dataclass(frozen=True)
class AredParams:
    """Adaptive RED in a researcher's units: RED's parameters (gentle on; max_p is the
    initial value), the adaptation interval and the target band as fractions of the way
    from min_th to max_th."""

    red: RedParams
    interval_s: float = 0.5
    target_low: float = 0.4
    target_high: float = 0.6
    # The paper's constants: increase by min(alpha, max_p / 4) up to max_p_top, decrease
    # by beta down to max_p_bottom.
    alpha: float = 0.01
    beta: float = 0.9
    max_p_top: float = 0.5
    max_p_bottom: float = 0.01

    def __post_init__(self) -> None:
        if not self.red.gentle:
            raise ValueError("Adaptive RED runs with gentle on")
        if self.interval_s <= 0:
            raise ValueError("interval must be positive")
        if not 0.0 <= self.target_low < self.target_high <= 1.0:
            raise ValueError("need 0 <= target_low < target_high <= 1")
        if not 0.0 < self.beta < 1.0:
            raise ValueError("beta must be in (0, 1)")
        check_at_most(
            "interval (us)", round(self.interval_s * 1e6), MAX_TIME_US, "times are bit<48> us"
        )


@dataclass(frozen=True)
class RampEntry:
    """One entry of the ramp table: avg in [low, high] -> fractions a and b in 2^-24."""

    low: int
    high: int
    a: int
    b: int

    def p_b(self, max_p: int) -> int:
        return (max_p * self.a + (PROB_ONE - max_p) * self.b) >> PROB_BITS


@dataclass(frozen=True)
class AredTables:
    """What the controller installs: RED's integers plus the adaptation's."""

    red: RedTables  # its p_b_table is for the initial max_p; ramp replaces it
    ramp: tuple[RampEntry, ...]
    band_low: int  # in 2^-16 packets, like avg
    band_high: int
    interval_us: int
    max_p_init: int  # in 2^-24
    max_p_top: int
    max_p_bottom: int
    alpha: int
    beta: int  # in 2^-BETA_BITS

    @classmethod
    def from_params(cls, params: AredParams) -> "AredTables":
        red = RedTables.from_params(params.red)
        linear = [
            RampEntry(e.low, e.high, e.value, 0)
            for e in ramp_bins(red.min_th_q16, red.max_th_q16, 0.0, 1.0)
        ]
        gentle = [
            RampEntry(e.low, e.high, PROB_ONE, e.value)
            for e in ramp_bins(red.max_th_q16, red.ramp_end_q16, 0.0, 1.0)
        ]
        span = red.max_th_q16 - red.min_th_q16
        return cls(
            red=red,
            ramp=(*linear, *gentle),
            band_low=red.min_th_q16 + round(params.target_low * span),
            band_high=red.min_th_q16 + round(params.target_high * span),
            interval_us=max(1, round(params.interval_s * 1e6)),
            max_p_init=probability(params.red.max_p),
            max_p_top=probability(params.max_p_top),
            max_p_bottom=probability(params.max_p_bottom),
            alpha=probability(params.alpha),
            beta=round(params.beta * (1 << BETA_BITS)),
        )

    def red_at(self, max_p: int) -> RedTables:
        """RED's config with the p_b that the ramp formula gives in each bin at max_p."""
        table = tuple(RangeEntry(e.low, e.high, e.p_b(max_p)) for e in self.ramp)
        return dataclasses.replace(self.red, p_b_table=table)


def adapted(config: AredTables, max_p: int, avg: int) -> int:
    """max_p after one adaptation at average avg: the band's additive increase or
    multiplicative decrease, or max_p itself inside the band or at a bound."""
    if avg > config.band_high and max_p <= config.max_p_top:
        return max_p + min(config.alpha, max_p >> 2)
    if avg < config.band_low and max_p >= config.max_p_bottom:
        return (max_p * config.beta) >> BETA_BITS
    return max_p


@dataclass
class AredQueue(RedQueue):
    """RED's per-port state plus max_p and next_adapt, the two registers ARED adds."""

    ared: AredTables = field(kw_only=True)
    max_p: int = 0
    next_adapt_us: int = 0  # 0: not started

    @classmethod
    def of(cls, config: AredTables) -> "AredQueue":
        return cls(config=config.red, ared=config)

    def arrive(self, now_us: int, ect: bool, draw: Callable[[], int]) -> Decision:
        self.update_avg(now_us)
        self._adapt(now_us)
        decision = self.decide(ect, draw)
        if decision in (Decision.ENQUEUE, Decision.MARK):
            if self.occupancy >= self.config.limit_pkts:
                return Decision.DROP_OVERFLOW
            self.occupancy += 1
        return decision

    def _adapt(self, now_us: int) -> None:
        cfg = self.ared
        if self.next_adapt_us == 0:
            self.max_p = cfg.max_p_init
        elif now_us >= self.next_adapt_us:
            self.max_p = adapted(cfg, self.max_p, self.avg)
        else:
            return
        # bit<48> in the program, which wraps as this mask does.
        self.next_adapt_us = (now_us + cfg.interval_us) & MAX_TIME_US
        self.config = cfg.red_at(self.max_p)


__all__ = ["BETA_BITS", "AredParams", "AredQueue", "AredTables", "RampEntry", "adapted"]
