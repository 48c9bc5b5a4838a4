"""red.p4's mark fraction at a held average follows the design curve, within 99 %.

The average and the queue are written into the program's registers before every packet,
so the decision sees a fixed average; the fraction of early drops (or marks) over the
run is compared with 1/E[gap] for the ramp's p_b: the linear ramp from min_th to max_th,
and gentle's second ramp from max_th to 2 max_th.
"""

import math

import pytest
from aqm_switch import OUT_PORT, aqm_dataplane
from red_switch import read_counters
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from p4aqm.controller.disciplines import RedConfig
from p4aqm.models.fixed_point import packets_to_avg, probability
from p4aqm.models.red import expected_mark_fraction
from programs import CompiledProgram

ARRIVALS = 60_000
AQM = RedConfig(
    discipline="red", min_th=30, max_th=90, max_p=0.1, limit_pkts=10_000, gentle=True, ecn=True
)


def p_b(avg_pkts: float) -> int:
    if avg_pkts < AQM.max_th:
        ramp = (avg_pkts - 30) / 60
        return probability(AQM.max_p * ramp)
    return probability(AQM.max_p + (1 - AQM.max_p) * (avg_pkts - 90) / 90)


@pytest.mark.parametrize("avg_pkts", [37.5, 60.0, 82.5, 100.0, 150.0])
@pytest.mark.parametrize("ecn", [0, 2], ids=["not-ect", "ect"])
def test_fraction_follows_the_ramp(red_program: CompiledProgram, avg_pkts: float, ecn: int) -> None:
    dp = aqm_dataplane(red_program, AQM, rate_pps=1e9, seed=3)
    frame = bytes(Ether() / IP(dst="10.0.2.1", tos=ecn) / UDP() / (b"x" * 18))
    held_occupancy = round(avg_pkts).to_bytes(4, "big")
    held_avg = packets_to_avg(avg_pkts).to_bytes(4, "big")
    for _ in range(ARRIVALS):
        dp.register_write("aqm_occupancy", OUT_PORT, held_occupancy)
        dp.register_write("red_avg", OUT_PORT, held_avg)
        dp.inject(1, frame)
    dp.take_output()
    marks, early, forced, overflow = read_counters(dp)
    assert forced == overflow == 0
    marked = marks if ecn else early
    assert (early if ecn else marks) == 0
    # The update before deciding moves the held average by (q - avg) w_q: nothing, here.
    expected = expected_mark_fraction(p_b(avg_pkts))
    half_width = 2.576 * math.sqrt(expected * (1 - expected) / ARRIVALS)
    assert abs(marked / ARRIVALS - expected) < half_width, (marked / ARRIVALS, expected)
