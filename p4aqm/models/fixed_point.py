"""Fixed point of the AQM programs: units, names and ranges, shared with p4src/.

p4src/include/fixed_point.p4 defines the same constants under the same names. The data
plane has no division and no floating point, so every RED-family quantity is an unsigned
integer in a fixed unit:

  quantity                          unit                       P4 field
  occupancy (admitted, not left)    packets                    bit<32>
  avg, min_th, max_th, ramp_end     2^-AVG_FRAC_BITS packets   bit<32>
  p_b, max_p, q_r                   2^-PROB_BITS               bit<32>
  decay, (1 - w_q)^m                2^-DECAY_BITS              bit<32>
  w_q                               2^-w_shift                 bit<8> w_shift

An average of 3.5 packets is 3.5 * 2^16 and a probability of 0.1 is round(0.1 * 2^24).

  avg <- avg + ((occupancy << AVG_FRAC_BITS) - avg) >> w_shift, taken on the absolute
         difference so that nothing goes below zero;
  mark  when count * p_b >= q_r, in 64 bits, q_r uniform in [0, PROB_ONE).

Ranges. The program's registers are 32 bits wide, so a config is refused when a value's
fixed-point form would not fit (check_at_most names the field, the value and the bound;
compare Linux's red_check_params):
  - occupancy never exceeds limit_pkts, and occupancy << AVG_FRAC_BITS must fit 32 bits:
    limit_pkts <= MAX_LIMIT_PKTS = 65535;
  - ramp_end is max_th, or 2 max_th with gentle, in 2^-16 packets: max_th <=
    MAX_TH_PKTS = 65535 packets, or MAX_TH_GENTLE_PKTS = 32767 with gentle; the same bound
    holds for any other threshold on an average;
  - w_q >= 2^-MAX_W_SHIFT = 2^-31: a shift by the register's width freezes the average;
  - times in microseconds are bit<48>: at most MAX_TIME_US.
"""

import math

AVG_FRAC_BITS = 16
ONE_PKT = 1 << AVG_FRAC_BITS
PROB_BITS = 24
PROB_ONE = 1 << PROB_BITS
Q_R_MAX = PROB_ONE - 1
# The idle-decay factor multiplies the average and is then shifted back.
DECAY_BITS = 16
DECAY_ONE = 1 << DECAY_BITS
# count = -1 in the program's 32-bit register: the average is off the ramp.
COUNT_NONE = (1 << 32) - 1

REGISTER_MAX = (1 << 32) - 1
MAX_LIMIT_PKTS = REGISTER_MAX >> AVG_FRAC_BITS  # 65535
MAX_TH_PKTS = REGISTER_MAX >> AVG_FRAC_BITS  # 65535
MAX_TH_GENTLE_PKTS = REGISTER_MAX >> (AVG_FRAC_BITS + 1)  # 32767
MAX_W_SHIFT = 31
MAX_TIME_US = (1 << 48) - 1


def check_at_most(field: str, value: float, largest: float, why: str) -> None:
    """Refuse a value whose fixed-point form would not fit the program's registers."""
    if value > largest:
        raise ValueError(
            f"{field} = {_show(value)} is too large:"
            f" the largest allowed is {_show(largest)} ({why})"
        )


def _show(value: float) -> str:
    """Integers in full (a bound such as 4294967295 must read exactly), others short."""
    return str(value) if isinstance(value, int) else f"{value:g}"


def packets_to_avg(packets: float) -> int:
    return round(packets * ONE_PKT)


def avg_to_packets(avg: int) -> float:
    return avg / ONE_PKT


def probability(p: float) -> int:
    """p in [0, 1] as an integer in [0, PROB_ONE]."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"probability {p} is not in [0, 1]")
    return round(p * PROB_ONE)


def weight_shift(w_q: float) -> int:
    """w_shift such that w_q = 2^-w_shift: the EWMA weight is a shift in the data plane."""
    if not 0.0 < w_q < 1.0:
        raise ValueError(f"w_q = {w_q} is not in (0, 1)")
    k = round(-math.log2(w_q))
    if k < 1 or abs(2.0**-k - w_q) > 1e-12 * w_q:
        raise ValueError(f"w_q = {w_q} is not a power of two 2^-k with k >= 1")
    if k > MAX_W_SHIFT:
        raise ValueError(
            f"w_q = {w_q:g} is too small: the smallest allowed is 2^-{MAX_W_SHIFT}"
            f" ({2.0**-MAX_W_SHIFT:g}), as the average shifts by at most {MAX_W_SHIFT} bits"
        )
    return k
