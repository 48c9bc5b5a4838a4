/* Fixed point of the AQM programs. p4aqm/models/fixed_point.py defines the same names
 * with the same values, and its docstring is this scheme in full.
 *
 * The data plane has no division and no floating point, so every RED-family quantity is
 * an unsigned integer in a fixed unit:
 *
 *   occupancy          packets admitted and not yet departed        bit<32>, packets
 *   avg, min_th,       the average occupancy and its thresholds     bit<32>, 2^-AVG_FRAC_BITS
 *   max_th, ramp_end                                                packets
 *   p_b, max_p         probabilities                                bit<32>, 2^-PROB_BITS
 *   q_r                the random mark threshold, [0, PROB_ONE)     bit<32>, 2^-PROB_BITS
 *   decay              (1 - w_q)^m for an idle time                 bit<32>, 2^-DECAY_BITS
 *   w_shift            w_q = 2^-w_shift                             bit<8>
 *
 * avg += ((occupancy << AVG_FRAC_BITS) - avg) >> w_shift, taken on |difference|.
 * An arrival on the ramp is marked when count * p_b >= q_r (64-bit product).
 *
 * Ranges, checked when a config is loaded (fixed_point.py, MAX_*): occupancy never
 * exceeds limit_pkts, so limit_pkts <= 65535 keeps occupancy << AVG_FRAC_BITS in 32 bits;
 * ramp_end is max_th, or 2 max_th with gentle, so max_th <= 65535 packets, or 32767 with
 * gentle; w_shift <= 31, since a shift by the width freezes the average.
 */
#ifndef P4AQM_FIXED_POINT_P4
#define P4AQM_FIXED_POINT_P4

const bit<8>  AVG_FRAC_BITS = 16;
const bit<32> ONE_PKT = 0x10000;          /* one packet in 2^-AVG_FRAC_BITS packets */
const bit<8>  PROB_BITS = 24;
const bit<64> PROB_ONE = 0x1000000;       /* probability 1 in 2^-PROB_BITS */
const bit<32> Q_R_MAX = 0xffffff;         /* PROB_ONE - 1: q_r is uniform in [0, PROB_ONE) */
const bit<8>  DECAY_BITS = 16;
const bit<32> DECAY_ONE = 0x10000;        /* a decay factor of 1 */
const bit<32> COUNT_NONE = 0xffffffff;    /* count = -1: the average is off the ramp */

#endif
