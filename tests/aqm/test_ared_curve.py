"""ared.p4's drop fraction at a held average and a held max_p follows the design curve.

Before every packet the average, the queue and max_p are written into the program's
registers, and the next adaptation is put out of reach, so each decision sees a fixed
average and max_p; the fraction of early drops over the run must match 1/E[gap] for
the p_b of the design curve (RED's expected_mark_fraction) within a 99 % confidence
interval. This checks the multiplication that turns the ramp table's fractions and the
register's max_p into p_b: the linear ramp max_p (avg - min_th) / (max_th - min_th),
and gentle's max_p + (1 - max_p) (avg - max_th) / max_th.
"""

import math
from collections.abc import Callable

import pytest
from aqm_switch import OUT_PORT, aqm_dataplane
from red_switch import read_counters
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from p4aqm.controller.disciplines import AredConfig
from p4aqm.models.fixed_point import packets_to_avg, probability
from p4aqm.models.red import expected_mark_fraction
from programs import CompiledProgram

ARRIVALS = 60_000
AQM = AredConfig(discipline="ared", min_th=30, max_th=90, max_p=0.1, limit_pkts=10_000)
NEVER_US = 1 << 47  # a next adaptation time the run never reaches


def design_p_b(avg_pkts: float, max_p: float) -> int:
    if avg_pkts < AQM.max_th:
        return probability(max_p * (avg_pkts - 30) / 60)
    return probability(max_p + (1 - max_p) * (avg_pkts - 90) / 90)


@pytest.mark.parametrize("avg_pkts", [37.5, 60.0, 82.5, 100.0, 150.0])
@pytest.mark.parametrize("max_p", [0.02, 0.3])
def test_fraction_follows_the_curve(
    p4src_program: Callable[[str], CompiledProgram], avg_pkts: float, max_p: float
) -> None:
    dp = aqm_dataplane(p4src_program("ared"), AQM, 1e9, seed=3)
    frame = bytes(Ether() / IP(dst="10.0.2.1") / UDP() / (b"x" * 18))
    held = {
        "aqm_occupancy": round(avg_pkts).to_bytes(4, "big"),
        "red_avg": packets_to_avg(avg_pkts).to_bytes(4, "big"),
        "ared_max_p": probability(max_p).to_bytes(4, "big"),
        "ared_next_adapt": NEVER_US.to_bytes(6, "big"),
    }
    for _ in range(ARRIVALS):
        for name, value in held.items():
            dp.register_write(name, OUT_PORT, value)
        dp.inject(1, frame)
    dp.take_output()
    marks, early, forced, overflow = read_counters(dp)
    assert marks == forced == overflow == 0
    # The update before deciding moves the held average by (q - avg) w_q: nothing, here.
    expected = expected_mark_fraction(design_p_b(avg_pkts, max_p))
    half_width = 2.576 * math.sqrt(expected * (1 - expected) / ARRIVALS)
    assert abs(early / ARRIVALS - expected) < half_width, (early / ARRIVALS, expected)
