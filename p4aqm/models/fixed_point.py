"""Fixed-point units shared by the P4 programs, their controller and their models.

The data plane never divides and has no floating point. Queue averages are held in
units of 2^-AVG_FRAC_BITS packets and probabilities in units of 2^-PROB_BITS, so that
an average of 3.5 packets is 3.5 * 2^16 and a probability of 0.1 is 0.1 * 2^24.
"""

import math

AVG_FRAC_BITS = 16
PROB_BITS = 24
PROB_ONE = 1 << PROB_BITS
# The idle-decay factor multiplies the average and is then shifted back.
DECAY_BITS = 16
DECAY_ONE = 1 << DECAY_BITS


def packets_to_avg(packets: float) -> int:
    return round(packets * (1 << AVG_FRAC_BITS))


def avg_to_packets(avg: int) -> float:
    return avg / (1 << AVG_FRAC_BITS)


def probability(p: float) -> int:
    """p in [0, 1] as an integer in [0, PROB_ONE]."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"probability {p} is not in [0, 1]")
    return round(p * PROB_ONE)


def weight_shift(w_q: float) -> int:
    """k such that w_q = 2^-k: the EWMA weight is a shift in the data plane."""
    if not 0.0 < w_q < 1.0:
        raise ValueError(f"w_q {w_q} is not in (0, 1)")
    k = round(-math.log2(w_q))
    if k < 1 or abs(2.0**-k - w_q) > 1e-12 * w_q:
        raise ValueError(f"w_q {w_q} is not a power of two 2^-k with k >= 1")
    return k
